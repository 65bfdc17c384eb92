// Lazy migration, applied: runs a migration plan's steps over one tenant's data in a
// transaction view, so the whole migration is one atomic commit (migrator.ts commits
// it through the committer). A step that meets data it cannot migrate (a duplicate
// under a new unique index, a `narrowed` value that does not convert) blocks the
// migration: nothing is written. Values are defaulted and described as queries do
// (src/query/values/row-validate.ts, types.ts).
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { Value } from '../lang/ast.js'
import { canonicalJson } from '../schema/canonical-json.js'
import { convertValue as convertForMigration } from '../schema/conversion.js'
import type { CollectionIR, SchemaIR } from '../schema/ir.js'
import { blockedByDanglingReference, blockedByDuplicate, blockedByValue, planMigration, type MigrationStep } from '../schema/migration-plan.js'
import { decodeKey, decodeRow, encodeKey, encodeRow } from '../codec/index.js'
import { key_bytes_max, row_bytes_max } from '../limits.js'
import { defaultValue } from '../query/values/index.js'
import { describeValue } from '../query/values/index.js'
import { autoIdKey, indexKey, indexTree, keyTooLargeReason, meta_fingerprint_key, meta_schema_key, metaTree, rowsTree, type TxnView } from '../txn/index.js'

type Row = Record<string, Value>

/** The IR a tenant was last migrated to, or null for a tenant never touched. */
export function appliedSchema(view: TxnView, tenant: string): { ir: SchemaIR; fingerprint: string } | null {
  const ir = view.get(metaTree(tenant), meta_schema_key)
  const fingerprint = view.get(metaTree(tenant), meta_fingerprint_key)
  if (ir === null || fingerprint === null) return null
  return { ir: JSON.parse(ir.toString('utf8')) as SchemaIR, fingerprint: fingerprint.toString('utf8') }
}

export type MigrationOutcome = { blocked: null; steps: MigrationStep[] } | { blocked: string; steps: MigrationStep[] }

/** Applies the migration from the tenant's applied IR to `to` in `view`. */
export async function migrate(view: TxnView, tenant: string, to: SchemaIR, fingerprint: string, now: Date): Promise<MigrationOutcome> {
  const from = appliedSchema(view, tenant)?.ir ?? null
  const planned = planMigration(from, to)
  if (planned.blocked !== null) return { blocked: planned.blocked, steps: [] }
  for (const step of planned.steps) {
    const blocked = await applyStep(view, tenant, step, from, to, now)
    if (blocked !== null) return { blocked, steps: planned.steps }
  }
  view.put(metaTree(tenant), meta_schema_key, Buffer.from(canonicalJson(to)))
  view.put(metaTree(tenant), meta_fingerprint_key, Buffer.from(fingerprint))
  return { blocked: null, steps: planned.steps }
}

function collectionOf(ir: SchemaIR | null, name: string): CollectionIR | undefined {
  return ir?.collections.find((c) => c.name === name)
}

async function applyStep(view: TxnView, tenant: string, step: MigrationStep, from: SchemaIR | null, to: SchemaIR, now: Date): Promise<string | null> {
  switch (step.kind) {
    case 'create_collection':
      return null // trees come into being with their first entry
    case 'rename_collection': {
      const counter = view.get(metaTree(tenant), autoIdKey(step.from))
      if (counter !== null) {
        view.put(metaTree(tenant), autoIdKey(step.to), counter)
        view.delete(metaTree(tenant), autoIdKey(step.from))
      }
      view.copyTree(rowsTree(tenant, step.from), rowsTree(tenant, step.to))
      view.dropTree(rowsTree(tenant, step.from))
      for (const index of collectionOf(from, step.from)?.indexes ?? []) {
        view.copyTree(indexTree(tenant, step.from, index.name), indexTree(tenant, step.to, index.name))
        view.dropTree(indexTree(tenant, step.from, index.name))
      }
      return null
    }
    case 'drop_collection': {
      view.delete(metaTree(tenant), autoIdKey(step.collection))
      view.dropTree(rowsTree(tenant, step.collection))
      for (const index of collectionOf(from, step.collection)?.indexes ?? []) view.dropTree(indexTree(tenant, step.collection, index.name))
      return null
    }
    case 'drop_index':
      view.dropTree(indexTree(tenant, step.collection, step.index))
      return null
    case 'rename_field':
      return rewriteRows(view, tenant, step.collection, (row) => {
        const { [step.from]: value, ...rest } = row
        return { ...rest, [step.to]: value ?? null }
      })
    case 'drop_field':
      return rewriteRows(view, tenant, step.collection, (row) => {
        const { [step.field]: _, ...rest } = row
        return rest
      })
    case 'add_field': {
      const declared = collectionOf(to, step.collection)?.fields.find((f) => f.name === step.field)
      const fill = step.fill === null || declared === undefined ? null : defaultValue({ ...declared, default: step.fill }, now)
      return rewriteRows(view, tenant, step.collection, (row) => ({ ...row, [step.field]: fill }))
    }
    case 'convert_field':
      return rewriteRows(view, tenant, step.collection, (row, key) => {
        const converted = convertForMigration(row[step.field] ?? null, step.from, step.to)
        if (!converted.ok) return blockedByValue(step, key, converted.reason)
        return { ...row, [step.field]: converted.value }
      })
    case 'build_index': {
      const collection = collectionOf(to, step.collection)
      const index = collection?.indexes.find((i) => i.name === step.index)
      if (collection === undefined || index === undefined) return null
      const tree = indexTree(tenant, step.collection, step.index)
      const seen = new Set<string>()
      let blocked: string | null = null
      await forEachRow(view, tenant, step.collection, (row) => {
        const values = index.fields.map((f) => row[f] ?? null)
        if (index.unique && !values.includes(null)) {
          const id = encodeKey(values).toString('hex')
          if (seen.has(id)) {
            blocked ??= blockedByDuplicate(step, values.map((v) => describeValue(v)).join(', '))
            return
          }
          seen.add(id)
        }
        const key = indexKey(index, collection, row)
        if (key.length > key_bytes_max) {
          blocked ??= `collection '${step.collection}': index '${step.index}' cannot be built: ${keyTooLargeReason(`the entry of the row with key ${describeValue(row[collection.primary] ?? null)}`, key.length)} (shorten that value, or leave the field out of the index)`
          return
        }
        view.put(tree, key, Buffer.alloc(0))
      })
      return blocked
    }
    case 'check_references': {
      const target = rowsTree(tenant, step.target)
      let blocked: string | null = null
      await forEachRow(view, tenant, step.collection, (row, key) => {
        const value = row[step.field] ?? null
        if (blocked !== null || value === null || view.has(target, encodeKey([value]))) return
        blocked = blockedByDanglingReference(step, describeValue(decodeKey(key)[0] ?? null), describeValue(value))
      })
      return blocked
    }
  }
}

/** Calls `visit` for every row of a collection, reading through the view in batches. */
async function forEachRow(view: TxnView, tenant: string, collection: string, visit: (row: Row, key: Buffer) => void): Promise<void> {
  const tree = rowsTree(tenant, collection)
  let lower: Buffer | undefined
  for (;;) {
    const batch = view.range(tree, { ...(lower === undefined ? {} : { lower, lowerInclusive: false }), limit: 1000 })
    for (const [key, value] of batch) visit(decodeRow(value) as Row, key)
    if (batch.length < 1000) return
    lower = batch.at(-1)?.[0]
    // A migration has no deadline; it yields so other tenants' queries keep running.
    await yieldToLoop()
  }
}

/** Rewrites every row; `change` returns the new row or a blocked reason. */
async function rewriteRows(view: TxnView, tenant: string, collection: string, change: (row: Row, key: string) => Row | string): Promise<string | null> {
  const tree = rowsTree(tenant, collection)
  let blocked: string | null = null
  await forEachRow(view, tenant, collection, (row, key) => {
    if (blocked !== null) return
    const rowKey = describeValue(decodeKey(key)[0] ?? null)
    const next = change(row, rowKey)
    if (typeof next === 'string') {
      blocked = next
      return
    }
    const encoded = encodeRow(next)
    if (encoded.length > row_bytes_max) {
      blocked = `collection '${collection}': the row with key ${rowKey} would encode to ${encoded.length} bytes, over the row limit of ${row_bytes_max} bytes`
      return
    }
    view.put(tree, key, encoded)
  })
  return blocked
}
