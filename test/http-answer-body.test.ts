// The query route's answer (src/http/answer-body.ts, docs/api.md "Size of an answer"):
// always exactly JSON.stringify's text; one string when it fits one chunk (a point
// query's answer, without a second writer), else chunks of about answer_chunk_bytes.
import { Readable } from 'node:stream'
import t from 'tap'
import { answerBody } from '../src/http/answer-body.js'
import { answer_chunk_bytes } from '../src/limits.js'
import type { QueryResult } from '../src/query/index.js'

async function text(body: string | Readable): Promise<{ text: string; chunks: number }> {
  if (typeof body === 'string') return { text: body, chunks: 1 }
  let all = ''
  let chunks = 0
  for await (const chunk of body) {
    all += String(chunk)
    chunks += 1
  }
  return { text: all, chunks }
}

const result = (rows: QueryResult['rows'], extra: Record<string, unknown> = {}): QueryResult =>
  ({ columns: ['k', 'v'], rows, plan: { collection: 'kv', access: 'primary' }, ...extra, stats: { elapsed_ms: 0.02, rows_examined: rows.length } }) as QueryResult

t.test('answer body: a point answer is one string, JSON.stringify\'s', async (t) => {
  // A field left undefined is left out, as JSON.stringify leaves it.
  const point = result([['key-000042', 'é"\\\n\u2028😀 value']], { truncated: undefined })
  const body = answerBody(point)
  t.type(body, 'string')
  t.equal(body, JSON.stringify(point))
})

t.test('answer body: large answers stream in chunks, the same text', async (t) => {
  const row = (i: number) => [`key-${i}`, 'x'.repeat(200), i, i % 2 === 0, null, new Date(i * 1000), { nested: [i, `é${i}`] }]
  const large = result(Array.from({ length: 2000 }, (_, i) => row(i)))
  const streamed = await text(answerBody(large))
  t.equal(streamed.text, JSON.stringify(large))
  t.ok(streamed.chunks > 1, `in chunks (${streamed.chunks})`)

  const block = result([], { results: [result(Array.from({ length: 500 }, (_, i) => row(i))), result([['a', 'b']])] })
  const blockText = await text(answerBody(block))
  t.equal(blockText.text, JSON.stringify(block), 'an atomic block\'s results too')
})

t.test('answer body: around the chunk size, the text never changes', async (t) => {
  // Answers whose text is just below, at and above the chunk size, in ASCII and in
  // characters whose bound is far above their length.
  const overhead = JSON.stringify(result([['']])).length
  for (const fill of ['a', 'é', '😀']) {
    for (const delta of [-2, -1, 0, 1, 2]) {
      const length = Math.max(0, Math.floor((answer_chunk_bytes - overhead + delta) / fill.length))
      const answer = result([[fill.repeat(length)]])
      const got = await text(answerBody(answer))
      t.equal(got.text, JSON.stringify(answer), `${fill} × ${length}`)
    }
  }
})
