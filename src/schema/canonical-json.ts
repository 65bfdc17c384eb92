// The canonical JSON of a schema IR: the bytes the fingerprint hashes and the form a
// tenant stores. Written member by member (not JSON.stringify of the object) so key
// order is the one ir.ts declares whatever order an IR object was built in, extra
// members are ignored, and lists ir.ts calls sorted are sorted here too.
import type { CollectionIR, DefaultIR, FieldIR, FieldType, IndexIR, JsonValue, QueryIR, QueryParamIR, SchemaIR } from './ir.js'

export function canonicalJson(ir: SchemaIR): string {
  return obj([
    ['version', num(ir.version)],
    ['collections', arr(byName(ir.collections).map(collection))],
    ['queries', arr(byName(ir.queries).map(query))],
    ['dropped_collections', arr(sorted(ir.dropped_collections).map(str))],
  ])
}

/** A JSON value with object keys sorted by code point, so equal values give equal text. */
export function canonicalValue(value: JsonValue): string {
  if (value === null || typeof value === 'boolean') return String(value)
  if (typeof value === 'number') return num(value)
  if (typeof value === 'string') return str(value)
  if (Array.isArray(value)) return arr(value.map(canonicalValue))
  return obj(sorted(Object.keys(value)).map((key) => [key, canonicalValue(value[key] ?? null)]))
}

/** Names in code-point order (not localeCompare: canonical bytes must not depend on locale). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function collection(c: CollectionIR): string {
  return obj([
    ['name', str(c.name)],
    ['primary', str(c.primary)],
    ['primary_auto', String(c.primary_auto)],
    ['fields', arr(c.fields.map(field))],
    ['indexes', arr(byName(c.indexes).map(index))],
    ['was', nullable(c.was, str)],
    ['dropped', arr(sorted(c.dropped).map(str))],
  ])
}

function field(f: FieldIR): string {
  return obj([
    ['name', str(f.name)],
    ['type', fieldType(f.type)],
    ['optional', String(f.optional)],
    ['default', nullable(f.default, defaultIR)],
    ['was', nullable(f.was, str)],
    ['narrowed', String(f.narrowed)],
    // Only on reference fields: schemas without references keep their bytes.
    ...(f.ref === undefined ? [] : [['ref', obj([['collection', str(f.ref.collection)], ['on_delete', str(f.ref.on_delete)]])] as [string, string]]),
  ])
}

function fieldType(t: FieldType): string {
  return t.kind === 'list' ? obj([['kind', str('list')], ['item', fieldType(t.item)]]) : obj([['kind', str(t.kind)]])
}

function defaultIR(d: DefaultIR): string {
  return d.kind === 'now' ? obj([['kind', str('now')]]) : obj([['kind', str('value')], ['value', canonicalValue(d.value)]])
}

function index(i: IndexIR): string {
  return obj([['name', str(i.name)], ['fields', arr(i.fields.map(str))], ['unique', String(i.unique)]])
}

function query(q: QueryIR): string {
  return obj([['name', str(q.name)], ['params', arr(q.params.map(param))], ['body', str(q.body)]])
}

function param(p: QueryParamIR): string {
  return obj([
    ['name', str(p.name)],
    ['type', fieldType(p.type)],
    ['optional', String(p.optional)],
    ['default', nullable(p.default, canonicalValue)],
  ])
}

function byName<T extends { name: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => compareNames(a.name, b.name))
}

function sorted(items: readonly string[]): string[] {
  return [...items].sort(compareNames)
}

function nullable<T>(value: T | null, write: (value: T) => string): string {
  return value === null ? 'null' : write(value)
}

function num(n: number): string {
  // JSON has no NaN or infinities; the IR builder never produces them, so one here is a bug.
  if (!Number.isFinite(n)) throw new Error(`schema IR holds a non-finite number (${n})`)
  return JSON.stringify(n)
}

function str(s: string): string {
  return JSON.stringify(s)
}

function arr(items: string[]): string {
  return `[${items.join(',')}]`
}

function obj(members: Array<[string, string]>): string {
  return `{${members.map(([key, value]) => `${str(key)}:${value}`).join(',')}}`
}
