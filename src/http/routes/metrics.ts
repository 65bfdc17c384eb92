// GET /api/v1/metrics: the server's metrics in the Prometheus text exposition format
// (docs/operations.md, "Metrics"), behind the token like every /api route (Prometheus
// sends it as `Authorization: Bearer`, from bearer_token_file).
import type { FastifyInstance } from 'fastify'
import type { ServerMetrics } from '../metrics/index.js'
import { described, responses } from '../schemas.js'

export const metrics_path = '/api/v1/metrics'

const schema = {
  operationId: 'getMetrics',
  summary: 'Metrics in the Prometheus text exposition format',
  description: 'Content type `text/plain; version=0.0.4; charset=utf-8`. Requests by route pattern, method and status; commits and their durations; ' +
    'fsync latency; WAL, checkpoint, page file, page cache and corruption figures; tenants; change-tail consumers and events sent; migrations applied and blocked.',
  response: responses({ 200: described('the metrics', { content: { 'text/plain': { schema: { type: 'string' } } } }) }),
}

export function metricsRoutes(metrics: ServerMetrics) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get(metrics_path, { schema, config: { access: 'service', opener: true } }, async (_request, reply) => {
      const { text, contentType } = await metrics.scrape()
      return reply.type(contentType).send(text)
    })
  }
}
