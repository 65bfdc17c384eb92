// Eel for CodeMirror 6: the project's own lezer grammar (src/lang/eel.grammar, the
// parser the server uses) with highlighting tags on its node names. The names are part
// of the grammar's contract (its header says so): keywords are nodes named after the
// word itself (`kw<term>`), names are wrapped by their role (CollectionName, FieldName…).
import { bracketMatching, foldNodeProp, foldInside, indentNodeProp, delimitedIndent, LanguageSupport, LRLanguage } from '@codemirror/language'
import { styleTags, tags as t } from '@lezer/highlight'
import { lezerParser } from '../../../src/lang/index.js'

const keywords = [
  'call', 'where', 'select', 'sort', 'asc', 'desc', 'skip', 'take', 'count', 'aggregate', 'by',
  'distinct', 'get', 'update', 'delete', 'insert', 'upsert', 'explain', 'atomic', 'collection',
  'was', 'primary', 'unique', 'narrowed', 'index', 'dropped', 'query', 'tenant', 'create',
  'suspend', 'resume', 'compact', 'fork', 'snapshot', 'restore', 'as', 'returning',
  'lookup', 'inner', 'many', 'on', 'ref', 'refuse', 'cascade', 'set',
]

export const eel_highlighting = styleTags({
  [keywords.join(' ')]: t.keyword,
  'and or not in': t.operatorKeyword,
  Boolean: t.bool,
  Null: t.null,
  Number: t.number,
  Duration: t.unit,
  String: t.string,
  Comment: t.lineComment,
  Param: t.special(t.variableName),
  CollectionName: t.typeName,
  'QueryName TenantName SnapshotName': t.namespace,
  'FieldName PreviousName': t.propertyName,
  Label: t.definition(t.propertyName),
  'FunctionName AggregateFunction': t.function(t.variableName),
  TypeName: t.className,
  ArithOp: t.arithmeticOperator,
  CompareOp: t.compareOperator,
  '|': t.controlOperator,
  '( )': t.paren,
  '[ ]': t.squareBracket,
  '{ }': t.brace,
  ', ;': t.separator,
  ': . ? = @': t.punctuation,
})

export const eel_language = LRLanguage.define({
  name: 'eel',
  parser: lezerParser.configure({
    props: [
      eel_highlighting,
      indentNodeProp.add({
        'Record List ArgList AtomicBlock CollectionDeclaration': delimitedIndent({ closing: '}' }),
      }),
      foldNodeProp.add({ 'Record List AtomicBlock CollectionDeclaration': foldInside }),
    ],
  }),
  languageData: { commentTokens: { line: '#' }, closeBrackets: { brackets: ['(', '[', '{', '"'] } },
})

export function eel(): LanguageSupport {
  return new LanguageSupport(eel_language, [bracketMatching()])
}

/** The same language over one expression (the data browser's filter: what follows `where`). */
const eel_expression_language = eel_language.configure({ top: 'StandaloneExpression' }, 'eel-expression')

export function eelExpression(): LanguageSupport {
  return new LanguageSupport(eel_expression_language, [bracketMatching()])
}
