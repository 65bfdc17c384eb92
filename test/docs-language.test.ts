// Every example in docs/language.md runs: ```eel blocks succeed against the schema of
// its ```eel-schema block (in order, in one database), ```eel-error blocks fail with
// the message after `# =>`, ```eel-tenant lines parse.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { EelError, formatDiagnostic } from '../src/lang/diagnostic.js'
import { parse } from '../src/lang/parse.js'
import { harness } from './helpers/query-runner.js'

const docs = readFileSync(new URL('../docs/language.md', import.meta.url), 'utf8')

function blocks(markdown: string, tag: string): string[] {
  const pattern = new RegExp('```' + tag + '\\n([\\s\\S]*?)```', 'g')
  return [...markdown.matchAll(pattern)].map((m) => (m[1] as string).trimEnd())
}

const params = {
  min: 30, e: 'ada@x', id: 1, name: 'Ada', a: 1, bad: 'x', from: 1, to: 2, amt: 5,
  rows: [{ id: 10, name: 'Ten' }, { id: 11, name: 'Eleven', country: 'NZ' }],
}

t.test('every eel example in docs/language.md runs', async (t) => {
  const [schema] = blocks(docs, 'eel-schema')
  t.ok(schema, 'the docs declare the schema their examples run against')
  const { q } = await harness(t, schema as string)
  await q('insert accounts [{id: 1, balance: 100}, {id: 2, balance: 0}]')
  await q('insert sessions {id: 1, user: 1, expires: "2020-01-01T00:00:00Z"}')
  const examples = blocks(docs, 'eel')
  t.ok(examples.length >= 20, `${examples.length} examples`)
  for (const example of examples) {
    await t.resolves(q(example, params), example)
  }
  const accounts = await q('accounts | sort id | select balance')
  t.same(accounts.rows, [[95], [5]], 'the documented transfer moved the money')
})

t.test('every eel-error example fails with the documented message', async (t) => {
  const [schema] = blocks(docs, 'eel-schema')
  const { q } = await harness(t, schema as string)
  const examples = blocks(docs, 'eel-error')
  t.ok(examples.length >= 3)
  for (const example of examples) {
    const [text, expected] = example.split('\n# => ') as [string, string]
    const err = await q(text, params).then(() => undefined, (e: unknown) => e)
    t.type(err, EelError, text)
    t.equal(formatDiagnostic((err as EelError).diagnostic), expected, text)
  }
})

t.test('every tenant operation example parses', async (t) => {
  const lines = blocks(docs, 'eel-tenant').flatMap((b) => b.split('\n'))
  t.equal(lines.length, 12)
  for (const line of lines) t.equal(parse(line, 'query').statements[0]?.kind, 'tenant_op', line)
})
