// Reading the Prometheus text exposition format with a parser of its own
// (parse-prometheus-text-format, a port of the Prometheus Python client's parser),
// never with the code that wrote it. `families` is the parse as Prometheus reads it
// (each family with its HELP and TYPE; the parser throws on a line it cannot read).
// The parser folds a histogram's samples into one set of buckets and drops the labels
// of its _sum and _count, which loses labelled histograms; `samples` reads every sample
// line as its own sample instead, by parsing the same text without its TYPE lines.
import { createRequire } from 'node:module'

export interface ParsedFamily {
  name: string
  help: string
  type: string
  metrics: Array<{ value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }>
}

const parse = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => ParsedFamily[]

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Exposition {
  families: ParsedFamily[]
  samples: Sample[]
}

/** Parses `text`; throws what the parser throws for a line that is not the format. */
export function parseExposition(text: string): Exposition {
  const families = parse(text)
  const untyped = parse(text.split('\n').filter((line) => !line.startsWith('# TYPE ')).join('\n'))
  const samples = untyped.flatMap((family) => family.metrics.map((m) => {
    const value = m.value === '+Inf' ? Infinity : m.value === '-Inf' ? -Infinity : Number(m.value)
    if (m.value === undefined || m.value.trim() === '' || (Number.isNaN(value) && m.value !== 'NaN')) throw new Error(`${family.name}: a sample without a number (${m.value})`)
    return { name: family.name, labels: m.labels ?? {}, value }
  }))
  return { families, samples }
}

/** The value of the one sample named `name` whose labels include `labels`; throws if none or several match. */
export function sampleValue(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = exposition.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (found.length !== 1) throw new Error(`${found.length} samples ${name}${JSON.stringify(labels)}`)
  return (found[0] as Sample).value
}

/** Like sampleValue, but 0 when no sample matches (a labelled series not yet created). */
export function sampleValueOrZero(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = exposition.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (found.length > 1) throw new Error(`${found.length} samples ${name}${JSON.stringify(labels)}`)
  return found[0]?.value ?? 0
}
