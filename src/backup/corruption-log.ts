// Reading a restored corruption.log (docs/format.md, "Corruption log") the way the
// storage engine reads it (crates/storage/src/corruption_log.rs, `parse`): a line is a
// report when it has seven tab-separated fields whose count and two times are unsigned
// 64-bit integers; the engine skips every other line without a word, so a report it
// cannot read would vanish. A restore names those lines (docs/operations.md, "Backup
// and restore"). test/backup-corruption-log.test.ts holds this to the engine's reading.
import { corruption_log_line_chars_shown_max, corruption_log_lines_named_max } from '../limits.js'

export const corruption_log_name = 'corruption.log'
/** The first line the engine writes. */
export const corruption_log_header = '# tenantdb corruption reports v1'

export interface UnreadableLine {
  /** 1-based. */
  line: number
  /** The line, cut to corruption_log_line_chars_shown_max characters. */
  text: string
}

export interface CorruptionLogReading {
  /** Lines the engine reads as reports. */
  reports: number
  /** Lines that are neither the header nor a report the engine can read. */
  unreadable_lines: number
  /** The first corruption_log_lines_named_max of them. */
  unreadable: UnreadableLine[]
}

const u64_max = (1n << 64n) - 1n
const field_count = 7
/** Fields 4 to 6 (count, first_seen_ms, last_seen_ms) must parse as u64; the others may hold anything. */
const numeric_fields = [4, 5, 6]

/** Reads `bytes`, a corruption.log, as the engine does (invalid UTF-8 replaced, as its lossy decoding does). */
export function readCorruptionLog(bytes: Buffer): CorruptionLogReading {
  const reading: CorruptionLogReading = { reports: 0, unreadable_lines: 0, unreadable: [] }
  lines(bytes.toString('utf8')).forEach((text, i) => {
    if (i === 0 && text === corruption_log_header) return
    if (isReport(text)) {
      reading.reports += 1
      return
    }
    reading.unreadable_lines += 1
    if (reading.unreadable.length < corruption_log_lines_named_max) reading.unreadable.push({ line: i + 1, text: shown(text) })
  })
  return reading
}

/** Rust's str::lines: split at \n, a \r before it dropped, no empty line after a final \n. */
function lines(text: string): string[] {
  const split = text.split('\n')
  if (split.at(-1) === '') split.pop()
  return split.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line))
}

/** What the engine takes as a report. It also skips lines starting with '#' and empty ones: no report either. */
function isReport(text: string): boolean {
  if (text === '' || text.startsWith('#')) return false
  const fields = text.split('\t')
  return fields.length === field_count && numeric_fields.every((i) => isU64(fields[i] as string))
}

/** Rust's u64::from_str: an optional +, then decimal digits, at most u64::MAX. */
function isU64(field: string): boolean {
  return /^\+?[0-9]+$/.test(field) && BigInt(field) <= u64_max
}

function shown(text: string): string {
  if (text.length <= corruption_log_line_chars_shown_max) return text
  // Not half a surrogate pair at the cut.
  return `${text.slice(0, corruption_log_line_chars_shown_max).replace(/[\uD800-\uDBFF]$/, '')}…`
}
