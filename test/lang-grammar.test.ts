// Runs every test/grammar/*.txt file (lezer's test format: `# name {config}`, input,
// `==>`, expected tree) against the generated parser. A new file is picked up by
// itself. Keyword and punctuation nodes may be left out of an expected tree.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileTests } from '@lezer/generator/test'
import t from 'tap'
import { parser } from '../src/lang/generated/parser.js'

const dir = 'test/grammar'
const files = readdirSync(dir).filter((name) => name.endsWith('.txt') && name !== 'fuzz-corpus.txt')

/** Keyword nodes are named by their word (lowercase); punctuation by its symbol. */
const mayIgnore = (type: { name: string }): boolean => /\W/.test(type.name) || /^[a-z]/.test(type.name)

t.ok(files.length >= 5, 'grammar test files are found')

for (const file of files) {
  t.test(file, async (t) => {
    for (const { name, run } of fileTests(readFileSync(join(dir, file), 'utf8'), file, mayIgnore)) {
      t.doesNotThrow(() => run(parser), name)
    }
  })
}

t.test('examples/schema.eel parses as a schema without errors', async (t) => {
  const text = readFileSync('examples/schema.eel', 'utf8')
  t.doesNotThrow(() => parser.configure({ top: 'Schema', strict: true }).parse(text))
})
