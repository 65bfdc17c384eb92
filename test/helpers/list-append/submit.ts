// The two ways a recorded workload reaches tenantdb: the embedding API in this process,
// and the HTTP query route of a real server (docs/api.md): 200 is a commit, 400 with
// `"conflict": true` a conflict, a lost connection no answer.
import type { Database } from '../../../src/database/index.js'
import type { Submit } from './record.js'

export function inProcess(db: Database, tenant = 'default'): Submit {
  return async (query, params) => {
    try {
      return { outcome: 'ok', answer: await db.tenant(tenant).query(query, params) }
    } catch (err) {
      if ((err as { code?: string }).code === 'conflict') return { outcome: 'fail' }
      return { outcome: 'error', reason: String(err) }
    }
  }
}

/** `api` is the server's API root, e.g. http://127.0.0.1:43123/api/v1. */
export function overHttp(api: string, token: string, tenant = 'default'): Submit {
  return async (query, params) => {
    let res: Response
    let text: string
    try {
      res = await fetch(`${api}/t/${tenant}/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, params }),
      })
      text = await res.text()
    } catch (err) {
      return { outcome: 'info', reason: String((err as Error).cause ?? err) }
    }
    let body: { conflict?: boolean } & Record<string, unknown>
    try {
      body = JSON.parse(text)
    } catch {
      return { outcome: 'error', reason: `${res.status} ${text.slice(0, 200)}` }
    }
    if (res.status === 200) return { outcome: 'ok', answer: body as never }
    if (res.status === 400 && body.conflict === true && body.code === 'conflict') return { outcome: 'fail' }
    return { outcome: 'error', reason: `${res.status} ${text.slice(0, 300)}` }
  }
}
