// The grammar's keywords (every kw<"…"> of src/lang/eel.grammar) are the ones the
// diagnostics' scanner knows (src/lang/parse-scan.ts) and the console highlights
// (console/src/editor/eel-language.ts): a keyword added to one and not the others
// would be reported or coloured as a name.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { keywords } from '../src/lang/parse-scan.js'

const grammar = readFileSync(new URL('../src/lang/eel.grammar', import.meta.url), 'utf8')
const console_source = readFileSync(new URL('../console/src/editor/eel-language.ts', import.meta.url), 'utf8')

const grammarWords = new Set([...grammar.matchAll(/kw<"([a-z_]+)">/g)].map((m) => m[1] as string))
const operatorWords = ['and', 'or', 'not', 'in']
const literalWords = ['true', 'false', 'null']

t.test('the scanner knows every keyword of the grammar, and nothing else', async (t) => {
  t.same([...keywords].sort(), [...grammarWords, ...literalWords].sort())
})

t.test('the console highlights every keyword of the grammar', async (t) => {
  const list = /const keywords = \[([^\]]*)\]/.exec(console_source)?.[1] ?? ''
  const highlighted = new Set([...list.matchAll(/'([a-z_]+)'/g)].map((m) => m[1] as string))
  t.same([...highlighted, ...operatorWords].sort(), [...grammarWords].sort())
  t.match(console_source, /Duration: t\.unit/, 'duration literals have their own tag')
})
