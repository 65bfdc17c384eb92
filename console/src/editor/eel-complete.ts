// Completion for the query editor and the data browser's filter, from the schema the
// tenant has loaded (collection names, their fields, named queries) and from the
// language's own word lists (src/lang's vocabulary: stages, functions, aggregates), so a
// stage or function the language gains is offered without a change here. Where the
// cursor stands is read from the text before it: after `|` a stage, at the start of a
// statement (or after insert, upsert) a collection, after `call` a named query, after
// `aggregate … :` an aggregate, anywhere else the fields of the statement's collection,
// the functions, and the expression keywords.
import type { Completion, CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete'
import { aggregate_words, function_words, stage_words } from '../../../src/lang/index.js'
import type { SchemaIR } from '../api/types.js'
import { typeText } from '../ui/typed-value.js'
import { eelName } from './eel-text.js'

const expression_words = ['and', 'or', 'not', 'in', 'true', 'false', 'null', 'asc', 'desc', 'by']
const statement_words = ['insert', 'upsert', 'explain', 'atomic', 'call']

const stageOptions: Completion[] = stage_words.map((w) => ({ label: w.name, type: 'keyword', detail: w.signature, info: w.about }))
const functionOptions: Completion[] = function_words.map((w) => ({ label: w.name, type: 'function', detail: w.signature, info: w.about, apply: `${w.name}(` }))
const aggregateOptions: Completion[] = aggregate_words.map((w) => ({ label: w.name, type: 'function', detail: w.signature, info: w.about, apply: `${w.name}(` }))
const expressionOptions: Completion[] = expression_words.map((w) => ({ label: w, type: 'keyword' }))

/** Where the completion is, judged from the statement's text before the cursor. */
export type CompletionPlace = 'stage' | 'collection' | 'query' | 'aggregate' | 'expression'

/** The statement the cursor is in: after the last `;`, or after `atomic {`. */
function currentStatement(before: string): string {
  const atomic = /\batomic\s*\{/.exec(before)
  const open = atomic === null ? -1 : atomic.index + atomic[0].length - 1
  return before.slice(Math.max(before.lastIndexOf(';'), open) + 1)
}

export function placeOf(before: string): CompletionPlace {
  const statement = currentStatement(before)
  const trimmed = statement.replace(/[\w`]*$/, '').trimEnd()
  if (trimmed.endsWith('|')) return 'stage'
  if (trimmed === '' || /\b(insert|upsert|explain)$/.test(trimmed)) return 'collection'
  if (/\bcall$/.test(trimmed)) return 'query'
  if (/\baggregate\b[^|]*:\s*$/.test(statement.replace(/[\w`]*$/, ''))) return 'aggregate'
  return 'expression'
}

/** The collection a statement reads or writes: its first name (or the one after insert/upsert). */
export function statementCollection(before: string): string | null {
  const statement = currentStatement(before)
  const match = /^\s*(?:explain\s+)?(?:(?:insert|upsert)\s+)?(`[^`]+`|[A-Za-z_]\w*)/.exec(statement)
  return match?.[1]?.replace(/`/g, '') ?? null
}

function fieldOptions(schema: SchemaIR, collection: string | null): Completion[] {
  const found = schema.collections.find((c) => c.name === collection)
  return (found?.fields ?? []).map((f) => ({ label: f.name, apply: eelName(f.name), type: 'property', detail: `${typeText(f.type)}${f.optional ? '?' : ''}` }))
}

/**
 * A completion source over `schema()` (null until it is loaded). `fixed` names the
 * collection when the text is an expression about one (the filter): then only
 * fields, functions and expression keywords are offered.
 */
export function eelCompletions(schema: () => SchemaIR | null, fixed?: () => string): CompletionSource {
  return (context: CompletionContext): CompletionResult | null => {
    const word = context.matchBefore(/[\w`]*/)
    if (word === null || (word.from === word.to && !context.explicit)) return null
    const ir = schema()
    const before = context.state.doc.sliceString(0, word.from)
    const place: CompletionPlace = fixed === undefined ? placeOf(before + word.text) : 'expression'
    const collections: Completion[] = (ir?.collections ?? []).map((c) => ({ label: c.name, apply: eelName(c.name), type: 'class', detail: `${c.fields.length} fields` }))
    let options: Completion[]
    switch (place) {
      case 'stage': options = stageOptions; break
      case 'collection': options = before.trim() === '' ? [...collections, ...statement_words.map((w) => ({ label: w, type: 'keyword' }))] : collections; break
      case 'query': options = (ir?.queries ?? []).map((q) => ({ label: q.name, apply: eelName(q.name), type: 'function', detail: `(${q.params.map((p) => p.name).join(', ')})` })); break
      case 'aggregate': options = aggregateOptions; break
      case 'expression': options = [...(ir === null ? [] : fieldOptions(ir, fixed?.() ?? statementCollection(before))), ...functionOptions, ...expressionOptions]
    }
    return { from: word.from, options, validFor: /^[\w`]*$/ }
  }
}
