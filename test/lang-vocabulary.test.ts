// The words the language exports for tools (src/lang/vocabulary.ts: the console's
// autocompletion) are exactly the ones the grammar and the query layer know: a stage
// keyword, function or aggregate added to one and not the other fails here.
import t from 'tap'
import { aggregate_words, function_words, stage_keywords, stage_words } from '../src/lang/index.js'
import { aggregateFns } from '../src/lang/cst-statement.js'
import { functions } from '../src/query/values/index.js'

const names = (words: ReadonlyArray<{ name: string }>) => words.map((w) => w.name).sort()

t.test('stages are the grammar\'s stage keywords', async (t) => {
  t.same(names(stage_words), [...stage_keywords].sort())
})

t.test('functions are the ones the query layer implements', async (t) => {
  t.same(names(function_words), Object.keys(functions).sort())
})

t.test('aggregates are the ones the parser accepts', async (t) => {
  t.same(names(aggregate_words), [...aggregateFns].sort())
})

t.test('every word has its signature, starting with its name, and a few words on what it does', async (t) => {
  for (const word of [...stage_words, ...function_words, ...aggregate_words]) {
    t.ok(word.signature.startsWith(word.name), `${word.name}: ${word.signature}`)
    t.ok(word.about.length > 5, `${word.name}: ${word.about}`)
  }
})
