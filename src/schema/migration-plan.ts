// Lazy migration, planned: what one tenant's data needs to go from the IR it was last
// migrated to (`from`; null for a fresh tenant) to the loaded IR (`to`). The plan is
// data: the executor applies the steps in order as one atomic commit. Changes that
// could lose data are refused here with a reason (`blocked`); the two checks that
// depend on the data (a unique index over duplicates, a `narrowed` value that does not
// convert) are marked on their steps and block at apply time (blockedByDuplicate,
// blockedByValue). Query changes need no step.
import { compareNames } from './canonical-json.js'
import { classifyChange, type FieldShape } from './conversion.js'
import { sameType, typeText } from './field-type.js'
import type { CollectionIR, DefaultIR, FieldIR, IndexIR, SchemaIR } from './ir.js'

export type MigrationStep =
  /** A new, empty collection; its indexes follow as build_index steps. */
  | { kind: 'create_collection'; collection: string }
  /** `collection to was from`: rows, keys and indexes kept under the new name. */
  | { kind: 'rename_collection'; from: string; to: string }
  /** `dropped collection c`: its rows and indexes are deleted. */
  | { kind: 'drop_collection'; collection: string }
  /** `to: T was from`: each row's value moves to the new name. */
  | { kind: 'rename_field'; collection: string; from: string; to: string }
  /** `dropped f`: the value is removed from every row. */
  | { kind: 'drop_field'; collection: string; field: string }
  /** Existing rows get `fill` (`now` = the migration's commit time), or stay without a value when null. */
  | { kind: 'add_field'; collection: string; field: string; fill: DefaultIR | null }
  /**
   * Every row's value converted with convertValue(value, from, to). `check` is false for
   * widenings, which cannot fail; true for `narrowed` changes, where a value that does
   * not convert blocks the migration (blockedByValue) and nothing is written.
   */
  | { kind: 'convert_field'; collection: string; field: string; from: FieldShape; to: FieldShape; check: boolean }
  | { kind: 'drop_index'; collection: string; index: string }
  /**
   * Built from the existing rows. When `unique`, the build checks them: two rows with the
   * same key block the migration (blockedByDuplicate) and nothing is written.
   */
  | { kind: 'build_index'; collection: string; index: string; fields: string[]; unique: boolean }
  /**
   * A field became a reference to `target` (or to another collection): every non-null
   * value must name a row of `target`, else the migration is blocked
   * (blockedByDanglingReference) and nothing is written. Runs after every other step.
   */
  | { kind: 'check_references'; collection: string; field: string; target: string }

export type MigrationPlan = { blocked: null; steps: MigrationStep[] } | { blocked: string; steps: [] }

export function planMigration(from: SchemaIR | null, to: SchemaIR): MigrationPlan {
  const drops: MigrationStep[] = []
  const renames: MigrationStep[] = []
  const changes: MigrationStep[] = []
  const references: MigrationStep[] = []
  const blocked: string[] = []
  const old = new Map((from?.collections ?? []).map((c) => [c.name, c]))
  const claimed = new Set<string>()

  for (const collection of [...to.collections].sort((a, b) => compareNames(a.name, b.name))) {
    let source = old.get(collection.name)
    const renamedFrom = collection.was
    if (renamedFrom !== null && renamedFrom !== collection.name && old.has(renamedFrom)) {
      claimed.add(renamedFrom)
      if (source !== undefined) {
        claimed.add(collection.name)
        blocked.push(`collection '${collection.name}' was '${renamedFrom}', but the applied schema still has a collection '${collection.name}'; drop one of them first`)
        continue
      }
      source = old.get(renamedFrom)
      renames.push({ kind: 'rename_collection', from: renamedFrom, to: collection.name })
    }
    if (source === undefined) {
      changes.push({ kind: 'create_collection', collection: collection.name }, ...sortedIndexes(collection).map((i) => buildIndex(collection.name, i)))
    } else {
      claimed.add(source.name)
      planCollection(source, collection, changes, blocked)
      references.push(...referenceChecks(source, collection))
    }
  }

  for (const collection of from?.collections ?? []) {
    if (claimed.has(collection.name)) continue
    if (to.dropped_collections.includes(collection.name)) drops.push({ kind: 'drop_collection', collection: collection.name })
    else blocked.push(`collection '${collection.name}' was removed, which would lose its rows (write \`dropped collection ${collection.name}\` to accept)`)
  }

  if (blocked.length > 0) return { blocked: blocked.join('; '), steps: [] }
  return { blocked: null, steps: [...drops, ...renames, ...changes, ...references] }
}

/** The fields of an existing collection that become references (or refer elsewhere): their rows are checked. */
function referenceChecks(before: CollectionIR, after: CollectionIR): MigrationStep[] {
  const steps: MigrationStep[] = []
  for (const field of after.fields) {
    if (field.ref === undefined) continue
    const source = before.fields.find((f) => f.name === (field.was ?? field.name)) ?? before.fields.find((f) => f.name === field.name)
    if (source?.ref?.collection === field.ref.collection) continue
    steps.push({ kind: 'check_references', collection: after.name, field: field.name, target: field.ref.collection })
  }
  return steps
}

/** The blocked reason when a row refers to no row of the reference's target. */
export function blockedByDanglingReference(step: MigrationStep & { kind: 'check_references' }, rowKey: string, value: string): string {
  return `collection '${step.collection}': field '${step.field}' cannot become a reference to '${step.target}': the row with key ${rowKey} refers to ${value}, which '${step.target}' does not hold (fix or delete such rows first)`
}

/** Appends the steps (or reasons to block) that turn collection `before` into `after`. */
function planCollection(before: CollectionIR, after: CollectionIR, steps: MigrationStep[], blocked: string[]): void {
  const c = after.name
  const oldFields = new Map(before.fields.map((f) => [f.name, f]))
  // new field name → the old field it continues, for the fields that have one
  const sources = new Map<string, FieldIR>()
  const claimed = new Set<string>()
  const reasons: string[] = []
  const renames: MigrationStep[] = []
  const dropFields: MigrationStep[] = []
  const converts: MigrationStep[] = []
  const adds: MigrationStep[] = []

  for (const field of after.fields) {
    let source = oldFields.get(field.name)
    if (field.was !== null && field.was !== field.name && oldFields.has(field.was)) {
      claimed.add(field.was)
      if (source !== undefined) {
        claimed.add(field.name)
        reasons.push(`collection '${c}': field '${field.name}' was '${field.was}', but the applied schema still has a field '${field.name}'; drop one of them first`)
        continue
      }
      source = oldFields.get(field.was)
      renames.push({ kind: 'rename_field', collection: c, from: field.was, to: field.name })
    }
    if (source === undefined) {
      if (field.optional || field.default !== null) adds.push({ kind: 'add_field', collection: c, field: field.name, fill: field.default })
      else reasons.push(`collection '${c}': new field '${field.name}' is required and has no default, so existing rows would have no value (make it optional or give it a default)`)
      continue
    }
    claimed.add(source.name)
    sources.set(field.name, source)
    const was = { type: source.type, optional: source.optional }
    const now = { type: field.type, optional: field.optional }
    const change = classifyChange(was, now)
    const what = `collection '${c}': field '${field.name}' changes from ${typeText(was.type, was.optional)} to ${typeText(now.type, now.optional)}`
    if (change === 'impossible') reasons.push(`${what}, which cannot be converted (add a new field instead)`)
    else if (change === 'narrow' && !field.narrowed) reasons.push(`${what}, which could lose data (mark it \`narrowed\` to convert each value; a value that does not convert blocks the migration)`)
    else if (change !== 'same') converts.push({ kind: 'convert_field', collection: c, field: field.name, from: was, to: now, check: change === 'narrow' })
  }

  // A different key field, or a new key type, would re-key every row: never automatic.
  const primarySource = sources.get(after.primary)
  if (primarySource === undefined && claimed.has(after.primary)) {
    blocked.push(...reasons) // the primary's own rename conflict, already said
    return
  }
  if (primarySource?.name !== before.primary) {
    blocked.push(`collection '${c}': the primary field changes from '${before.primary}' to '${after.primary}', which would give every row a new key`)
    return
  }
  const primary = after.fields.find((f) => f.name === after.primary)
  if (primary !== undefined && !sameType(primary.type, primarySource.type)) {
    blocked.push(`collection '${c}': primary field '${after.primary}' changes from ${typeText(primarySource.type)} to ${typeText(primary.type)}, which would give every row a new key`)
    return
  }

  for (const field of before.fields) {
    if (claimed.has(field.name)) continue
    if (after.dropped.includes(field.name)) dropFields.push({ kind: 'drop_field', collection: c, field: field.name })
    else reasons.push(`collection '${c}': field '${field.name}' was removed, which would lose its data (write \`dropped ${field.name}\` in collection '${c}' to accept)`)
  }
  if (reasons.length > 0) {
    blocked.push(...reasons)
    return
  }

  // An index is kept only if it indexes the same (possibly renamed) fields, none of
  // whose values change encoding; everything else is dropped and built again.
  const newName = new Map([...sources].map(([name, source]) => [source.name, name]))
  const converted = new Set(converts.flatMap((s) => (s.kind === 'convert_field' ? [s.field] : [])))
  const kept = new Set<string>()
  const dropIndexes: MigrationStep[] = []
  for (const index of sortedIndexes(before)) {
    const fields = index.fields.map((f) => newName.get(f) ?? `\u0000${f}`)
    const same = after.indexes.find((i) => i.name === index.name && i.unique === index.unique && sameList(i.fields, fields))
    if (same !== undefined && !fields.some((f) => converted.has(f))) kept.add(same.name)
    else dropIndexes.push({ kind: 'drop_index', collection: c, index: index.name })
  }
  const builds = sortedIndexes(after).filter((i) => !kept.has(i.name)).map((i) => buildIndex(c, i))
  steps.push(...dropIndexes, ...renames, ...dropFields, ...converts, ...adds, ...builds)
}

function buildIndex(collection: string, index: IndexIR): MigrationStep {
  return { kind: 'build_index', collection, index: index.name, fields: [...index.fields], unique: index.unique }
}

function sortedIndexes(collection: CollectionIR): IndexIR[] {
  return [...collection.indexes].sort((a, b) => compareNames(a.name, b.name))
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i])
}

/** The blocked reason when a unique index build meets two rows with the same key. */
export function blockedByDuplicate(step: MigrationStep & { kind: 'build_index' }, key: string): string {
  return `collection '${step.collection}': unique index '${step.index}' cannot be built: more than one row has ${step.fields.length === 1 ? `${step.fields[0]} = ${key}` : `(${step.fields.join(', ')}) = ${key}`}`
}

/** The blocked reason when a `narrowed` value does not convert (`reason` from convertValue). */
export function blockedByValue(step: MigrationStep & { kind: 'convert_field' }, rowKey: string, reason: string): string {
  return `collection '${step.collection}': field '${step.field}' cannot change from ${typeText(step.from.type, step.from.optional)} to ${typeText(step.to.type, step.to.optional)}: in the row with key ${rowKey}, ${reason}`
}

/** One line per step, for logs and the console. */
export function describeStep(step: MigrationStep): string {
  switch (step.kind) {
    case 'create_collection': return `create collection ${step.collection}`
    case 'rename_collection': return `rename collection ${step.from} to ${step.to}`
    case 'drop_collection': return `drop collection ${step.collection} and its rows`
    case 'rename_field': return `rename ${step.collection}.${step.from} to ${step.to}`
    case 'drop_field': return `drop ${step.collection}.${step.field} from every row`
    case 'add_field': return `add ${step.collection}.${step.field}${step.fill === null ? '' : step.fill.kind === 'now' ? ' = now()' : ` = ${JSON.stringify(step.fill.value)}`}`
    case 'convert_field': return `convert ${step.collection}.${step.field} from ${typeText(step.from.type, step.from.optional)} to ${typeText(step.to.type, step.to.optional)}${step.check ? ' (checked per row)' : ''}`
    case 'drop_index': return `drop index ${step.collection}.${step.index}`
    case 'build_index': return `build ${step.unique ? 'unique index' : 'index'} ${step.collection}.${step.index} (${step.fields.join(', ')}) from existing rows${step.unique ? ' (checks for duplicates)' : ''}`
    case 'check_references': return `check that every ${step.collection}.${step.field} names a row of ${step.target}`
  }
}
