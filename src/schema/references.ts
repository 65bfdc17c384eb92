// Reference fields across collections (docs/language.md "References"): once every
// collection is built, each `ref` names a declared collection and takes the type of
// its primary key, and gets an index on its field (unless an index starts with it),
// which a delete of a referenced row reads to find the rows referring to it.
import type { CollectionDecl } from '../lang/ast.js'
import { didYouMean } from '../lang/diagnostic.js'
import { compareNames } from './canonical-json.js'
import type { CollectionIR } from './ir.js'
import type { Reporter, SourceFile } from './report.js'

export function resolveReferences(built: CollectionIR[], decls: ReadonlyMap<string, { decl: CollectionDecl; file: SourceFile }>, report: Reporter): void {
  for (const collection of built) {
    for (const field of collection.fields) {
      if (field.ref === undefined) continue
      const source = decls.get(collection.name)
      const member = source?.decl.members.find((m) => m.kind === 'field' && m.name === field.name)
      const target = built.find((c) => c.name === field.ref?.collection)
      if (target === undefined) {
        const hint = didYouMean(field.ref.collection, built.map((c) => c.name))
        if (source !== undefined && member !== undefined) {
          report.error(source.file, member.span, `field '${field.name}' of '${collection.name}' refers to unknown collection '${field.ref.collection}'`, 'unknown_collection', hint === undefined ? {} : { hint })
        }
        continue
      }
      const key = target.fields.find((f) => f.name === target.primary)
      field.type = key === undefined ? { kind: 'int' } : { ...key.type }
      const indexed = collection.indexes.some((i) => i.fields[0] === field.name)
      if (!indexed && !collection.indexes.some((i) => i.name === field.name)) {
        collection.indexes.push({ name: field.name, fields: [field.name], unique: false })
        collection.indexes.sort((a, b) => compareNames(a.name, b.name))
      }
    }
  }
}
