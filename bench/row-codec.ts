// Row codec candidates, measured, so the choice rests on figures: the binary format
// of src/codec/row.ts against JSON with a small tagging scheme (kept only here). Per row
// shape: bytes per row, encode and decode rows/s, each the median of `--reps` passes
// after a warm-up, and binary/JSON ratios (>1 means binary is better).
//
//   npm run bench:codec [-- --reps 5 --out results.json]
import { writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import type { Value } from '../src/lang/ast.js'
import { decodeRow, encodeRow } from '../src/codec/index.js'
import { CodecError, compareValues, kindOf } from '../src/codec/index.js'
import { seeded } from './harness/random.js'

const { values } = parseArgs({ options: { reps: { type: 'string', default: '5' }, out: { type: 'string' } } })
const reps = Number(values.reps)

type Row = Record<string, Value>

const rand = seeded(42)
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T
const word = (n: number) => Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('')
const first = ['Ada', 'Bo', 'Cy', 'Dana', 'Émile', 'Zoë', 'Jürgen', 'Mei', 'Søren', 'Olu']

const shapes: Record<string, () => Row> = {
  // The schema of docs/language.md's example collection.
  users: (() => {
    let id = 0
    return () => {
      id += 1
      return {
        id,
        email: `${word(8)}.${id}@example.com`,
        name: `${pick(first)} ${word(7)}`,
        age: rand() < 0.2 ? null : 18 + Math.floor(rand() * 60),
        status: pick(['active', 'inactive', 'pending']),
        tags: Array.from({ length: Math.floor(rand() * 4) }, () => word(5)),
        created: new Date(1_700_000_000_000 + Math.floor(rand() * 1e10)),
      }
    }
  })(),
  // The performance doc's data shape: 24-byte key, 150-byte value.
  kv: () => ({ k: `key-${String(Math.floor(rand() * 1e12)).padStart(20, '0')}`, v: word(150) }),
  // A json field: nested records and lists, floats, unicode.
  json: () => ({
    id: Math.floor(rand() * 1e9),
    payload: {
      title: `${word(12)} ✓ ${pick(first)}`,
      score: rand() * 100,
      ratio: rand(),
      points: Array.from({ length: 8 }, () => ({ x: rand() * 1000, y: Math.floor(rand() * 1000), label: word(4) })),
      meta: { ok: rand() < 0.5, note: null, seen: new Date(1_700_000_000_000 + Math.floor(rand() * 1e10)) },
    },
  }),
  // A large row (~200 KiB): a document with a long list of small records.
  large: () => ({
    id: Math.floor(rand() * 1e9),
    items: Array.from({ length: 2000 }, (_, i) => ({ i, sku: word(10), qty: Math.floor(rand() * 100), price: Math.round(rand() * 1e4) / 100, note: word(40) })),
  }),
}
const counts: Record<string, number> = { users: 20_000, kv: 20_000, json: 5_000, large: 20 }

// ---- candidate (a): JSON with a small tagging scheme (the loser; kept only here) ----
// A value JSON cannot carry becomes {"$": tag, "v": payload}: "d" a Date (v = ms),
// "n" a number JSON has no text for (v = "Infinity", "-Infinity" or "-0"), "o" a record
// that itself has a "$" field (v = that record, escaped). Containers are copied only
// when something inside them needed a tag. Like the binary codec it refuses NaN,
// undefined and non-values; unlike it, it does not check the UTF-8 it decodes.
function toJson(value: Value, depth: number): unknown {
  switch (typeof value) {
    case 'string': case 'boolean': return value
    case 'number':
      if (Number.isFinite(value) && !Object.is(value, -0)) return value
      if (Number.isNaN(value)) throw new CodecError('NaN is not a storable value')
      return { $: 'n', v: String(Object.is(value, -0) ? '-0' : value) }
  }
  if (depth > 100) throw new CodecError('too deep')
  switch (kindOf(value)) {
    case 'null': return null
    case 'timestamp': return { $: 'd', v: (value as Date).getTime() }
    case 'list': {
      const items = value as Value[]
      let out: unknown[] | null = null
      for (let i = 0; i < items.length; i += 1) {
        const item = items[i] as Value
        const mapped = toJson(item, depth + 1)
        if (mapped !== item && out === null) out = items.slice(0, i)
        if (out !== null) out.push(mapped)
      }
      return out ?? items
    }
    default: {
      const record = value as Record<string, Value>
      let out: Record<string, unknown> | null = null
      const names = Object.keys(record)
      for (let i = 0; i < names.length; i += 1) {
        const name = names[i] as string
        const item = record[name] as Value
        const mapped = toJson(item, depth + 1)
        if (mapped !== item && out === null) {
          out = {}
          for (let j = 0; j < i; j += 1) out[names[j] as string] = record[names[j] as string]
        }
        if (out !== null) out[name] = mapped
      }
      return Object.hasOwn(record, '$') ? { $: 'o', v: out ?? record } : out ?? record
    }
  }
}

function fromJson(value: unknown): Value {
  if (typeof value !== 'object' || value === null) return value as Value
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) value[i] = fromJson(value[i])
    return value as Value[]
  }
  const record = value as Record<string, unknown>
  const tag = record.$
  if (tag !== undefined) {
    if (tag === 'd') return new Date(record.v as number)
    if (tag === 'n') return Number(record.v)
    if (tag === 'o') return fromJsonFields(record.v as Record<string, unknown>) // a record with its own "$" field
    throw new CodecError('unknown JSON row tag')
  }
  return fromJsonFields(record)
}

function fromJsonFields(record: Record<string, unknown>): Row {
  for (const name in record) record[name] = fromJson(record[name])
  return record as Row
}

function encodeJsonRow(row: Row): Buffer {
  return Buffer.from(JSON.stringify(toJson(row, 0)), 'utf8')
}

function decodeJsonRow(buf: Buffer): Row {
  return fromJson(JSON.parse(buf.toString('utf8'))) as Row
}

interface Candidate { encode: (row: Row) => Buffer; decode: (buf: Buffer) => Row }
const candidates: Record<string, Candidate> = {
  json: { encode: encodeJsonRow, decode: decodeJsonRow },
  binary: { encode: encodeRow, decode: decodeRow },
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

// Passes over the whole set until at least 200 ms passed; returns rows/s.
function rate(rows: number, pass: () => void): number {
  let done = 0
  const started = process.hrtime.bigint()
  let elapsed = 0
  do {
    pass()
    done += rows
    elapsed = Number(process.hrtime.bigint() - started) / 1e9
  } while (elapsed < 0.2)
  return done / elapsed
}

let sink = 0
interface Result { bytes: number; encode: number[]; decode: number[] }
interface Measured { json: Result; binary: Result; encodeRatio: number[]; decodeRatio: number[] }
const results: Record<string, Measured> = {}
for (const [shape, make] of Object.entries(shapes)) {
  const rows = Array.from({ length: counts[shape] as number }, make)
  const passes = Object.entries(candidates).map(([name, codec]) => {
    const encoded = rows.map(codec.encode)
    // Both candidates must give the rows back, or the comparison means nothing.
    encoded.slice(0, 100).forEach((buf, i) => {
      if (compareValues(codec.decode(buf), rows[i] as Row) !== 0) throw new Error(`${name} does not round-trip ${shape}`)
    })
    const encodePass = () => { for (const row of rows) sink += codec.encode(row).length }
    const decodePass = () => { for (const buf of encoded) sink += Object.keys(codec.decode(buf)).length }
    encodePass(); decodePass(); encodePass(); decodePass() // warm-up: JIT, scratch buffers
    const result: Result = { bytes: encoded.reduce((sum, buf) => sum + buf.length, 0) / rows.length, encode: [], decode: [] }
    return { result, encodePass, decodePass }
  })
  // Candidates take turns within each repetition, so a change in machine load between
  // repetitions hits both alike; ratios are taken per repetition, then the median.
  for (let rep = 0; rep < reps; rep += 1) {
    for (const { result, encodePass, decodePass } of passes) {
      result.encode.push(rate(rows.length, encodePass))
      result.decode.push(rate(rows.length, decodePass))
    }
    process.stderr.write(`${shape} rep ${rep + 1}/${reps}\r`)
  }
  const [json, binary] = passes.map((p) => p.result) as [Result, Result]
  results[shape] = {
    json, binary,
    encodeRatio: binary.encode.map((x, i) => x / (json.encode[i] as number)),
    decodeRatio: binary.decode.map((x, i) => x / (json.decode[i] as number)),
  }
}

const fmt = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(0))
const out = (cells: string[]) => process.stdout.write(`  ${cells.map((c, i) => (i === 0 ? c.padEnd(6) : c.padStart(i % 3 === 1 ? 11 : 8))).join(' ')}\n`)
process.stdout.write(`\nrow codec, median of ${reps} (${cpus().length} cores, node ${process.version}); ratio = binary vs JSON (per repetition, median), >1: binary better\n`)
out(['shape', 'bytes json', 'binary', 'smaller', 'enc/s json', 'binary', 'ratio', 'dec/s json', 'binary', 'ratio'])
const summary: Record<string, unknown> = {}
for (const [shape, m] of Object.entries(results)) {
  const row = {
    bytes: { json: m.json.bytes, binary: m.binary.bytes },
    encode: { json: median(m.json.encode), binary: median(m.binary.encode), ratio: median(m.encodeRatio) },
    decode: { json: median(m.json.decode), binary: median(m.binary.decode), ratio: median(m.decodeRatio) },
  }
  summary[shape] = row
  out([shape, row.bytes.json.toFixed(0), row.bytes.binary.toFixed(0), `${(row.bytes.json / row.bytes.binary).toFixed(2)}×`,
    fmt(row.encode.json), fmt(row.encode.binary), `${row.encode.ratio.toFixed(2)}×`,
    fmt(row.decode.json), fmt(row.decode.binary), `${row.decode.ratio.toFixed(2)}×`])
}
if (sink === 0) process.stdout.write('(no work)\n')
if (values.out !== undefined) writeFileSync(values.out, `${JSON.stringify({ cores: cpus().length, node: process.version, reps, raw: results, median: summary }, null, 2)}\n`)
