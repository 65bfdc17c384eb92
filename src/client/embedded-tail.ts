// The change feed of a database opened in this process, through the client's interface
// (docs/client.md, "The change feed"): the embedding API's long polls (`tenant.tail`),
// page after page, each resumed from the last page's `last_lsn`, so it delivers what a
// server's feed does, each event once, in LSN order, with the same errors.
import type { Tenant } from '../database/index.js'
import type { TailEvent } from '../http/wire/tail.js'
import { mapped } from './embedded-errors.js'
import { filtered } from './tail-filter.js'
import { long_poll_wait_ms, poll_limit } from './tail.js'
import type { TenantTailOptions } from './types.js'

export async function* embeddedTail(tenant: Tenant, options: TenantTailOptions): AsyncGenerator<TailEvent, void> {
  const signal = options.signal
  const collections = [...new Set(options.collections ?? [])]
  // Several collections: the whole tenant, filtered here; each name is checked once, so
  // a misspelt one ends the feed with `unknown_collection` as one filter would.
  const wanted = collections.length > 1 ? new Set(collections) : undefined
  const only = collections.length === 1 ? { collection: collections[0] } : {}
  let after = options.after
  for (const collection of wanted ?? []) {
    await mapped(false, signal, () => tenant.tail({ ...(after === undefined ? {} : { after }), collection, limit: 1 }))
  }
  for (;;) {
    const from = after === undefined ? {} : { after }
    const page = await mapped(false, signal, () => tenant.tail({ ...from, ...only, limit: poll_limit, wait_ms: long_poll_wait_ms, ...(signal === undefined ? {} : { signal }) }))
    for (const raw of page.events) {
      const event = filtered(raw as unknown as TailEvent, wanted)
      if (event !== undefined) yield event
      after = raw.lsn
    }
    after = Math.max(after ?? 0, page.last_lsn)
  }
}
