// GET /api/v1/schema.eel: the schema source the server was started with, as text.
// Several files are concatenated with a "# file: NAME" line before each (docs/api.md,
// "Schema source").
import type { FastifyInstance } from 'fastify'
import { described, responses } from '../schemas.js'

export interface SchemaFile {
  name: string
  source: string
}

export function concatSchemaSources(files: readonly SchemaFile[]): string {
  return files.map((file) => `# file: ${file.name}\n${file.source.endsWith('\n') ? file.source : `${file.source}\n`}`).join('')
}

const schema = {
  operationId: 'getSchemaSource',
  summary: 'The schema source the server was started with',
  response: responses({ 200: described('OK', { content: { 'text/plain': { schema: { type: 'string' } } } }) }),
}

export function schemaSourceRoutes(files: readonly SchemaFile[]) {
  const text = concatSchemaSources(files)
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get('/api/v1/schema.eel', { schema, config: { access: 'any' } }, async (_request, reply) => reply.type('text/plain; charset=utf-8').send(text))
  }
}
