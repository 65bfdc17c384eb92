// The fastify server: hooks, error mapping and routes. It holds no state of its own
// beyond what it is given.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { body_bytes_max, request_timeout_ms } from '../limits.js'
import { authHook } from './auth.js'
import { sendError } from './errors.js'
import { log_serializers } from './log.js'
import { healthRoutes } from './routes/health.js'
import { schemaSourceRoutes, type SchemaFile } from './routes/schema-source.js'

export interface ServerOptions {
  token: string
  schema: readonly SchemaFile[]
  /** A pino logger configuration, or false for none. */
  logger?: FastifyServerOptions['logger']
}

export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger === undefined || options.logger === false
      ? false
      : { ...(typeof options.logger === 'object' ? options.logger : {}), serializers: log_serializers },
    bodyLimit: body_bytes_max,
    requestTimeout: request_timeout_ms,
    return503OnClosing: true,
  })

  app.addHook('onRequest', authHook(options.token))

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}`),
  )
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (error.statusCode === 413) return sendError(reply, 'payload_too_large', `request body exceeds ${body_bytes_max} bytes`)
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, 'bad_request', error.message)
    }
    request.log.error({ err: error }, 'request failed')
    return sendError(reply, 'internal', 'internal error; see the server log')
  })

  await app.register(healthRoutes)
  await app.register(schemaSourceRoutes(options.schema))
  return app
}
