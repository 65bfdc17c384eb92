// The query route's answer as JSON text (docs/api.md, "Size of an answer"): exactly
// JSON.stringify's text of the result, but written a chunk at a time. The statement has
// finished (and its rows were counted against result_bytes_max) before the first byte
// is written, so every failure is still a proper status; what streaming saves is the
// one string of the whole answer and the event loop's time: each chunk is made when the
// response stream asks for more (as the socket drains), in a turn of the event loop of
// its own, so other requests are served in between. An answer that surely fits one
// chunk (most: a point query's) is JSON.stringify's text at once: its size is bounded
// first by json-bytes.ts's bound, which reads no string and stops at the chunk size.
import { Readable } from 'node:stream'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Value } from '../lang/ast.js'
import { answer_chunk_bytes } from '../limits.js'
import { jsonBytesBound, type QueryResult } from '../query/index.js'

/** The answer's text: a string when it fits in one chunk, else a stream of chunks. */
export function answerBody(result: QueryResult): string | Readable {
  // The bound is of UTF-8 bytes, never fewer than the text's UTF-16 units: below the
  // chunk size, answerChunks would yield nothing and return this very text.
  if (jsonBytesBound(result as unknown as Value, answer_chunk_bytes) < answer_chunk_bytes) return JSON.stringify(result)
  const chunks = answerChunks(result as unknown as Record<string, unknown>)
  const first = chunks.next()
  if (first.done === true) return first.value
  return Readable.from(following(first.value, chunks), { objectMode: false })
}

/**
 * The chunks after the first, each made in a turn of the event loop of its own: a
 * socket that takes them as fast as they come (a client on the same host) would
 * otherwise pull them all in one turn.
 */
async function* following(first: string, chunks: Generator<string, string>): AsyncGenerator<string> {
  yield first
  for (;;) {
    await nextTurn()
    const next = chunks.next()
    yield next.value // the rest, when done: never empty, the answer ends with its closing brackets
    if (next.done === true) return
  }
}

/**
 * Yields a chunk each time answer_chunk_bytes of text are ready, and returns the rest.
 * `rows` are written row by row, in the result and in each of `results` (an atomic
 * block's); every other field is small and written whole.
 */
function* answerChunks(result: Record<string, unknown>): Generator<string, string> {
  const text = { parts: [] as string[], length: 0 }
  const put = (part: string) => {
    text.parts.push(part)
    text.length += part.length
  }
  const take = () => {
    const chunk = text.parts.join('')
    text.parts = []
    text.length = 0
    return chunk
  }
  function* object(value: Record<string, unknown>): Generator<string> {
    let first = true
    put('{')
    for (const key in value) {
      const field = value[key]
      if (field === undefined) continue // as JSON.stringify leaves it out
      put(`${first ? '' : ','}${JSON.stringify(key)}:`)
      first = false
      if (key === 'rows' && Array.isArray(field)) yield* rows(field as Value[][])
      else if (key === 'results' && Array.isArray(field)) {
        put('[')
        for (let i = 0; i < field.length; i += 1) {
          if (i > 0) put(',')
          yield* object(field[i] as Record<string, unknown>)
        }
        put(']')
      } else put(JSON.stringify(field))
    }
    put('}')
  }
  function* rows(list: Value[][]): Generator<string> {
    put('[')
    for (let i = 0; i < list.length; i += 1) {
      put(i === 0 ? JSON.stringify(list[i]) : `,${JSON.stringify(list[i])}`)
      if (text.length >= answer_chunk_bytes) yield take()
    }
    put(']')
  }
  yield* object(result)
  return take()
}
