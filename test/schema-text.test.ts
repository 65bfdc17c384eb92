// A schema IR written back as a schema file (src/schema/schema-text.ts, what `tenantdb
// query`'s `.schema` shows): loading the text gives the same IR, so the same
// fingerprint, for the example schema, the language reference's, and one that uses
// every member a file can write (renames, drops, narrowing, defaults of every kind,
// unique and composite indexes, names that need backticks, strings that need escapes,
// a collection with an assigned id, named queries with parameters). Breaks when the
// writer leaves out or misspells a member.
import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { buildSchemaIR, canonicalJson, fingerprint, schemaText } from '../src/schema/index.js'

const every_member = `
collection people was users {
  id: int primary,
  mail: string? unique was email,
  name: string = "A \\"quoted\\" \\\\ name\\twith\\ttabs\\nand a line \\u{1}",
  score: float narrowed,
  tags: [string] = ["x", "y"],
  extra: json = {"a": [1, 2.5, null, true], "b": {"c": "d"}},
  born: timestamp = now(),
  since: timestamp = "2020-01-02T03:04:05.000Z",
  \`select\`: int = -3,
  \`odd name\`: bool = false,
  index (name, born),
  unique index (score),
  dropped age,
}

collection logs { at: timestamp, line: string }

dropped collection sessions

query top($n: int = 10, $who: string?, $since: timestamp) {
  people | where born > $since | take $n
}

query all { logs }
`

async function roundTrip(t: Test, source: string, what: string) {
  const ir = buildSchemaIR([{ name: 'a.eel', source }])
  const text = schemaText(ir)
  const again = buildSchemaIR([{ name: 'written.eel', source: text }])
  t.equal(canonicalJson(again), canonicalJson(ir), `${what}: the written text loads to the same IR\n${text}`)
  t.equal(await fingerprint(again), await fingerprint(ir), `${what}: and the same fingerprint`)
  return text
}

t.test('the written schema loads to the same IR', async (t) => {
  await roundTrip(t, readFileSync('examples/schema.eel', 'utf8'), 'examples/schema.eel')
  const reference = /```eel-schema\n([\s\S]*?)```/.exec(readFileSync('docs/language.md', 'utf8'))?.[1]
  t.ok(reference !== undefined, 'the language reference has a schema')
  await roundTrip(t, reference as string, 'docs/language.md')
  const text = await roundTrip(t, every_member, 'every member')
  t.match(text, /collection people was users \{\n  id: int primary,\n  mail: string\? was email,/, 'fields in order, with their modifiers')
  t.match(text, /`select`: int = -3/, 'a keyword as a name is quoted')
  t.match(text, /unique index \(mail\)/, 'a unique field is written as its unique index')
  t.match(text, /collection logs \{\n  at: timestamp,/, 'the assigned id is left out')
  t.match(text, /dropped collection sessions/)
  t.match(text, /query top\(\$n: int = 10, \$who: string\?, \$since: timestamp\) \{/)
  t.equal(schemaText(buildSchemaIR([])), '', 'no schema: no text')
})
