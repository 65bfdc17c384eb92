// One `collection` declaration → CollectionIR, with the checks that need only that
// declaration: duplicate fields, the primary field, indexes, defaults, `was` and
// `dropped` inside the collection.
import type { CollectionDecl, FieldDecl, Span } from '../lang/ast.js'
import { didYouMean } from '../lang/diagnostic.js'
import { compareNames } from './canonical-json.js'
import { defaultIR, typeIR } from './default-value.js'
import { isKeyType, typeText } from './field-type.js'
import type { CollectionIR, FieldIR, IndexIR } from './ir.js'
import { nameSpan, type Reporter, type SourceFile } from './report.js'

interface Placed<T> {
  value: T
  span: Span
}

export function buildCollection(decl: CollectionDecl, file: SourceFile, report: Reporter): CollectionIR {
  const c = decl.name
  const fields: FieldIR[] = []
  const declared = new Map<string, FieldDecl>()
  const indexes: Array<Placed<IndexIR>> = []
  const dropped: Array<Placed<string>> = []
  const primaries: FieldDecl[] = []

  for (const member of decl.members) {
    if (member.kind === 'field') {
      if (declared.has(member.name)) {
        report.error(file, member.span, `duplicate field '${member.name}' in collection '${c}'`)
        continue
      }
      declared.set(member.name, member)
      const { type, optional } = typeIR(member.type, file, report)
      const what = `field '${member.name}'`
      const fieldDefault = member.default === null ? null : defaultIR(member.default, { type, optional, what, allowNow: true }, file, report)
      const field: FieldIR = { name: member.name, type, optional, default: fieldDefault ?? null, was: member.was, narrowed: member.narrowed }
      const target = member.type.kind === 'ref' ? member.type : member.type.kind === 'optional' && member.type.inner.kind === 'ref' ? member.type.inner : null
      if (target !== null) {
        field.ref = { collection: target.collection, on_delete: member.onDelete?.action ?? 'refuse' }
        if (member.primary) report.error(file, member.span, `primary field '${member.name}' cannot be a reference`)
        if (member.onDelete?.action === 'set_null' && !optional) {
          report.error(file, member.onDelete.span, `field '${member.name}' is not optional, so it cannot be set to null; write ref ${target.collection}? or choose another action`)
        }
      } else if (member.onDelete !== null) {
        report.error(file, member.onDelete.span, `'on delete' belongs to reference fields; '${member.name}' is not one (write ${member.name}: ref other_collection)`)
      }
      fields.push(field)
      if (member.primary) primaries.push(member)
      // The primary key is unique already; a unique index on it would only cost writes.
      else if (member.unique) indexes.push({ value: { name: member.name, fields: [member.name], unique: true }, span: member.span })
    } else if (member.kind === 'index') {
      indexes.push({ value: { name: member.fields.join('_'), fields: [...member.fields], unique: member.unique }, span: member.span })
    } else {
      dropped.push({ value: member.name, span: member.span })
    }
  }

  const primary = checkPrimary(decl, primaries, fields, declared, file, report)
  checkIndexes(c, indexes, fields, file, report)
  checkRenames(c, fields, declared, dropped, file, report)
  return {
    name: c,
    primary: primary.name,
    primary_auto: primary.auto,
    fields,
    indexes: indexes.map((i) => i.value).sort((a, b) => compareNames(a.name, b.name)),
    was: decl.was,
    dropped: dropped.map((d) => d.value).sort(compareNames),
  }
}

function checkPrimary(
  decl: CollectionDecl,
  primaries: FieldDecl[],
  fields: FieldIR[],
  declared: Map<string, FieldDecl>,
  file: SourceFile,
  report: Reporter,
): { name: string; auto: boolean } {
  const [first, second] = primaries
  if (second !== undefined) {
    report.error(file, second.span, `collection '${decl.name}' has more than one primary field: '${first?.name}' and '${second.name}'`)
  }
  if (first === undefined) {
    if (declared.has('id')) {
      report.error(file, decl.nameSpan, `collection '${decl.name}' has no primary field, and 'id' cannot be assigned because a field 'id' is declared; mark one field primary`)
    } else {
      fields.unshift({ name: 'id', type: { kind: 'int' }, optional: false, default: null, was: null, narrowed: false })
    }
    return { name: 'id', auto: true }
  }
  const field = fields.find((f) => f.name === first.name)
  if (field !== undefined) {
    if (field.optional) report.error(file, first.span, `primary field '${field.name}' cannot be optional`)
    if (!isKeyType(field.type)) report.error(file, first.span, `primary field '${field.name}' must be int, float, string, bool or timestamp, not ${typeText(field.type)}`)
    // Every row needs its own key; one default value would collide on the second insert.
    if (first.default !== null) report.error(file, first.span, `primary field '${field.name}' cannot have a default`)
  }
  return { name: first.name, auto: false }
}

function checkIndexes(c: string, indexes: Array<Placed<IndexIR>>, fields: FieldIR[], file: SourceFile, report: Reporter): void {
  const names = new Set<string>()
  for (const { value: index, span } of indexes) {
    const seen = new Set<string>()
    const written = `(${index.fields.join(', ')})`
    if (index.fields.length === 0) report.error(file, span, `an index needs at least one field (collection '${c}')`)
    for (const [i, name] of index.fields.entries()) {
      const at = nameSpan(file.source, span, name, { nth: index.fields.slice(0, i).filter((f) => f === name).length })
      const field = fields.find((f) => f.name === name)
      if (seen.has(name)) {
        report.error(file, at, `field '${name}' appears twice in index ${written}`)
      } else if (field === undefined) {
        const hint = didYouMean(name, fields.map((f) => f.name))
        report.error(file, at, `unknown field '${name}' in index ${written} of collection '${c}'`, 'unknown_field', hint === undefined ? {} : { hint })
      } else if (!isKeyType(field.type)) {
        report.error(file, at, `field '${name}' is ${typeText(field.type)}; only int, float, string, bool and timestamp fields can be indexed`)
      }
      seen.add(name)
    }
    if (names.has(index.name)) report.error(file, span, `duplicate index '${index.name}' in collection '${c}'`)
    names.add(index.name)
  }
}

function checkRenames(
  c: string,
  fields: FieldIR[],
  declared: Map<string, FieldDecl>,
  dropped: Array<Placed<string>>,
  file: SourceFile,
  report: Reporter,
): void {
  const renamedBy = new Map<string, string>()
  const names = new Set(fields.map((f) => f.name))
  for (const field of fields) {
    const decl = declared.get(field.name)
    if (field.was === null || decl === undefined) continue
    const at = nameSpan(file.source, decl.span, field.was, { after: 'was' })
    const other = renamedBy.get(field.was)
    if (field.was === field.name) report.error(file, at, `field '${field.name}' says was '${field.was}', its own name`)
    else if (names.has(field.was)) report.error(file, at, `field '${field.name}' was '${field.was}', but '${field.was}' is still declared in collection '${c}'`)
    else if (other !== undefined) report.error(file, at, `fields '${other}' and '${field.name}' both say was '${field.was}'`)
    else renamedBy.set(field.was, field.name)
  }
  const seen = new Set<string>()
  for (const { value: name, span } of dropped) {
    const renamed = renamedBy.get(name)
    if (seen.has(name)) report.error(file, span, `field '${name}' is dropped twice in collection '${c}'`)
    else if (names.has(name)) report.error(file, span, `field '${name}' is dropped, but collection '${c}' still declares it`)
    else if (renamed !== undefined) report.error(file, span, `field '${name}' is dropped, but field '${renamed}' was '${name}'`)
    seen.add(name)
  }
}
