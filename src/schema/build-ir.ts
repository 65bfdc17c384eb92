// Schema files → the canonical schema IR (ir.ts). Each file is parsed in 'schema' mode;
// declarations from all files form one schema. Every problem is reported, in file
// order, as a SchemaError whose diagnostics name their file (line:column within it).
// Codes: the parser's as they come, 'unknown_field' for an index naming no field,
// 'type_error' for every other schema error (DiagnosticCode has no schema-specific one).
// No node: imports: the browser console reuses this.
import type { CollectionDecl, QueryDecl, Script, Span } from '../lang/ast.js'
import { EelError, lineColumn } from '../lang/diagnostic.js'
import { parse } from '../lang/parse.js'
import { buildCollection } from './build-collection.js'
import { resolveReferences } from './references.js'
import { compareNames } from './canonical-json.js'
import { defaultIR, typeIR } from './default-value.js'
import type { CollectionIR, QueryIR, QueryParamIR, SchemaIR } from './ir.js'
import { nameSpan, Reporter, type SourceFile } from './report.js'
import { SchemaError } from './schema-error.js'

export function buildSchemaIR(files: readonly SourceFile[]): SchemaIR {
  const report = new Reporter()
  const parsed: Array<{ file: SourceFile; script: Script }> = []
  for (const file of files) {
    try {
      parsed.push({ file, script: parse(file.source, 'schema') })
    } catch (err) {
      if (!(err instanceof EelError)) throw err
      report.diagnostics.push(...err.diagnostics.map((d) => ({ ...d, file: file.name })))
    }
  }
  fail(report, files)
  return buildFromScripts(parsed, report, files)
}

/** The IR of already parsed schema files (the console parses as the author types). */
export function buildFromScripts(parsed: ReadonlyArray<{ file: SourceFile; script: Script }>, report = new Reporter(), files: readonly SourceFile[] = parsed.map((p) => p.file)): SchemaIR {
  const collections = new Map<string, { decl: CollectionDecl; file: SourceFile }>()
  const queries = new Map<string, { decl: QueryDecl; file: SourceFile }>()
  const dropped: Array<{ name: string; span: Span; file: SourceFile }> = []
  const where = (file: SourceFile, span: Span): string => {
    const { line, column } = lineColumn(file.source, span.from)
    return `${file.name}:${line}:${column}`
  }

  for (const { file, script } of parsed) {
    for (const statement of script.statements) {
      if (statement.kind === 'collection_decl') {
        const first = collections.get(statement.name)
        if (first === undefined) collections.set(statement.name, { decl: statement, file })
        else report.error(file, statement.nameSpan, `duplicate collection '${statement.name}' (first declared at ${where(first.file, first.decl.nameSpan)})`)
      } else if (statement.kind === 'query_decl') {
        const first = queries.get(statement.name)
        if (first === undefined) queries.set(statement.name, { decl: statement, file })
        else report.error(file, statement.nameSpan, `duplicate query '${statement.name}' (first declared at ${where(first.file, first.decl.nameSpan)})`)
      } else if (statement.kind === 'drop_collection_decl') {
        dropped.push({ name: statement.name, span: statement.span, file })
      } else {
        report.error(file, statement.span, 'a schema file holds only collection, query and `dropped collection` declarations', 'not_allowed_here')
      }
    }
  }

  const built = [...collections.values()].map(({ decl, file }) => buildCollection(decl, file, report))
  checkCollectionRenames(built, collections, dropped, report)
  resolveReferences(built, collections, report)
  const ir: SchemaIR = {
    version: 1,
    collections: built.sort((a, b) => compareNames(a.name, b.name)),
    queries: [...queries.values()].map(({ decl, file }) => buildQuery(decl, file, report)).sort((a, b) => compareNames(a.name, b.name)),
    dropped_collections: [...new Set(dropped.map((d) => d.name))].sort(compareNames),
  }
  fail(report, files)
  return ir
}

function checkCollectionRenames(
  built: CollectionIR[],
  decls: Map<string, { decl: CollectionDecl; file: SourceFile }>,
  dropped: Array<{ name: string; span: Span; file: SourceFile }>,
  report: Reporter,
): void {
  const renamedBy = new Map<string, string>()
  for (const collection of built) {
    const source = decls.get(collection.name)
    if (collection.was === null || source === undefined) continue
    const { decl, file } = source
    const at = nameSpan(file.source, { from: decl.nameSpan.to, to: decl.span.to }, collection.was, { after: 'was' })
    const other = renamedBy.get(collection.was)
    if (collection.was === collection.name) report.error(file, at, `collection '${collection.name}' says was '${collection.was}', its own name`)
    else if (decls.has(collection.was)) report.error(file, at, `collection '${collection.name}' was '${collection.was}', but '${collection.was}' is still declared`)
    else if (other !== undefined) report.error(file, at, `collections '${other}' and '${collection.name}' both say was '${collection.was}'`)
    else renamedBy.set(collection.was, collection.name)
  }
  const seen = new Set<string>()
  for (const { name, span, file } of dropped) {
    const renamed = renamedBy.get(name)
    if (seen.has(name)) report.error(file, span, `collection '${name}' is dropped twice`)
    else if (decls.has(name)) report.error(file, span, `collection '${name}' is dropped, but it is still declared`)
    else if (renamed !== undefined) report.error(file, span, `collection '${name}' is dropped, but collection '${renamed}' was '${name}'`)
    seen.add(name)
  }
}

function buildQuery(decl: QueryDecl, file: SourceFile, report: Reporter): QueryIR {
  const params: QueryParamIR[] = []
  for (const param of decl.params) {
    // The parser may keep the `$`; the IR names parameters as callers pass them.
    const name = param.name.startsWith('$') ? param.name.slice(1) : param.name
    if (params.some((p) => p.name === name)) {
      report.error(file, param.span, `duplicate parameter '${name}' in query '${decl.name}'`)
      continue
    }
    const { type, optional } = typeIR(param.type, file, report)
    const checked = param.default === null ? null : defaultIR(param.default, { type, optional, what: `parameter '${name}'`, allowNow: false }, file, report)
    params.push({ name, type, optional, default: checked?.kind === 'value' ? checked.value : null })
  }
  return { name: decl.name, params, body: file.source.slice(decl.body.span.from, decl.body.span.to) }
}

/** Throws every diagnostic so far, in file order, then by position. */
function fail(report: Reporter, files: readonly SourceFile[]): void {
  if (report.diagnostics.length === 0) return
  const order = new Map(files.map((f, i) => [f.name, i]))
  const sorted = [...report.diagnostics].sort((a, b) => (order.get(a.file) ?? 0) - (order.get(b.file) ?? 0) || a.from - b.from)
  throw new SchemaError(sorted)
}
