// A schema IR written back as a schema file (docs/language.md, "Schema files"): what
// `tenantdb query`'s `.schema` shows of the schema a tenant was last migrated to, which
// is kept as IR, not as the files it came from. Loading the text gives the same IR and
// fingerprint (test/schema-text.test.ts): every member is written, `was`, `narrowed`
// and `dropped` included; the assigned `id: int primary` of a collection without a
// primary field is left out, as it was written; indexes are written as `index (…)`,
// which names them as `field: T unique` does; a reference as `ref collection` with its
// `on delete`.
import { keywords } from '../lang/parse-scan.js'
import { typeText } from './field-type.js'
import type { CollectionIR, DefaultIR, FieldIR, JsonValue, QueryIR, SchemaIR } from './ir.js'

export function schemaText(ir: SchemaIR): string {
  const parts = [
    ...ir.collections.map(collectionText),
    ...ir.dropped_collections.map((name) => `dropped collection ${nameText(name)}\n`),
    ...ir.queries.map(queryText),
  ]
  return parts.join('\n')
}

function collectionText(c: CollectionIR): string {
  const fields = c.fields.filter((f) => !(c.primary_auto && f.name === c.primary)).map((f) => fieldText(f, !c.primary_auto && f.name === c.primary))
  const indexes = c.indexes.map((i) => `${i.unique ? 'unique ' : ''}index (${i.fields.map(nameText).join(', ')})`)
  const dropped = c.dropped.map((f) => `dropped ${nameText(f)}`)
  const members = [...fields, ...indexes, ...dropped].map((m) => `  ${m},\n`).join('')
  return `collection ${nameText(c.name)}${c.was === null ? '' : ` was ${nameText(c.was)}`} {\n${members}}\n`
}

function fieldText(f: FieldIR, primary: boolean): string {
  const modifiers = [
    primary ? 'primary' : null,
    f.default === null ? null : `= ${defaultText(f.default)}`,
    f.was === null ? null : `was ${nameText(f.was)}`,
    f.narrowed ? 'narrowed' : null,
    f.ref === undefined ? null : `on delete ${f.ref.on_delete.replace('_', ' ')}`,
  ].filter((m) => m !== null)
  // A reference's type is the referenced key's, so it is written as `ref collection`.
  const type = f.ref === undefined ? typeText(f.type, f.optional) : `ref ${nameText(f.ref.collection)}${f.optional ? '?' : ''}`
  return [`${nameText(f.name)}: ${type}`, ...modifiers].join(' ')
}

function queryText(q: QueryIR): string {
  const params = q.params.map((p) => `$${p.name}: ${typeText(p.type, p.optional)}${p.default === null ? '' : ` = ${valueText(p.default)}`}`)
  return `query ${nameText(q.name)}${params.length === 0 ? '' : `(${params.join(', ')})`} {\n  ${q.body}\n}\n`
}

function defaultText(d: DefaultIR): string {
  return d.kind === 'now' ? 'now()' : valueText(d.value)
}

/** A JSON value as an Eel literal. */
function valueText(value: JsonValue): string {
  if (typeof value === 'string') return stringText(value)
  if (Array.isArray(value)) return `[${value.map(valueText).join(', ')}]`
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${stringText(k)}: ${valueText(v)}`).join(', ')}}`
  return JSON.stringify(value)
}

/** Eel's escapes are \" \\ \n \t and \u{…} (docs/language.md). */
function stringText(text: string): string {
  return `"${text.replace(/["\\\u0000-\u001f\u007f]/g, (ch) => {
    if (ch === '"' || ch === '\\') return `\\${ch}`
    if (ch === '\n') return '\\n'
    if (ch === '\t') return '\\t'
    return `\\u{${(ch.codePointAt(0) as number).toString(16)}}`
  })}"`
}

/** A name as written: backticks around a keyword or anything not an identifier. */
function nameText(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !keywords.has(name) ? name : `\`${name}\``
}
