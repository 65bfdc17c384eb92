// P9's anchor: bare fastify with one POST route answering a constant JSON body of the
// size of tenantdb's answer to a point query. No logging, no auth: the HTTP ceiling.
// Prints {"port": N} once listening; stops on SIGTERM.
import Fastify from 'fastify'
import { key, value } from '../harness/data.js'

const body = {
  columns: ['k', 'v'],
  rows: [[key(42), value(42)]],
  plan: { access: 'primary get', collection: 'kv' },
  stats: { elapsed_ms: 0.01, rows_examined: 1 },
}
const app = Fastify({ logger: false })
app.post('/api/v1/t/:tenant/query', async () => body)
await app.listen({ host: '127.0.0.1', port: 0 })
const address = app.server.address()
process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : 0 })}\n`)
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)))
