// GET /api/v1/trends (docs/api.md, "Trends"): the server's one-second samples of the
// last 20 minutes, by column (the console's charts draw them as they are). `after`
// (Unix seconds) answers only the samples after it, so a poller fetches what is new.
import type { FastifyInstance } from 'fastify'
import { trend_interval_ms } from '../../limits.js'
import { trend_figures } from '../metrics/trend-ring.js'
import type { TrendSampler } from '../metrics/trend-sampler.js'
import { described, intQuery, responses } from '../schemas.js'
import { trends_body, type Trends } from '../wire/index.js'

export const trends_path = '/api/v1/trends'

/** The body, its series named one by one for the document (the wire type keeps them by name: Record). */
const body = {
  ...trends_body,
  properties: {
    ...trends_body.properties,
    series: { ...trends_body.properties.series, required: [...trend_figures], properties: Object.fromEntries(trend_figures.map((f) => [f, trends_body.properties.series.additionalProperties])) },
  },
}

const schema = {
  operationId: 'getTrends',
  summary: 'One-second samples of the last 20 minutes, by column',
  description: 'Each figure is one array, oldest sample first; `t` is the end of each second in Unix seconds. Counts are per second ' +
    '(commits, conflicts, rows_written, queries, fsyncs, checkpoints, cache_hits, cache_misses); the rest is the state at the end of the second. ' +
    'Percentiles are null in a second without queries or syncs. Kept in memory: a restart starts afresh.',
  querystring: {
    type: 'object',
    properties: { after: intQuery('only samples whose t is after this (Unix seconds)') },
  },
  response: responses({
    200: described('OK', body),
  }),
}

export function trendRoutes(trends: TrendSampler) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: { after?: number } }>(trends_path, { schema, config: { access: 'service', opener: true } }, async (request): Promise<Trends> => ({
      interval_ms: trend_interval_ms,
      capacity: trends.ring.capacity,
      series: trends.ring.columns(request.query.after),
    }))
  }
}
