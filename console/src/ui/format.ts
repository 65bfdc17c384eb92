// How numbers, sizes, durations and times read in the console: grouped digits,
// binary units, and the unit a person would pick for the magnitude.
const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 })

export function count(value: number): string {
  return integer.format(value)
}

export function bytes(value: number): string {
  if (value < 1024) return `${integer.format(value)} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let scaled = value / 1024
  let unit = 0
  while (scaled >= 1024 && unit < units.length - 1) {
    scaled /= 1024
    unit += 1
  }
  return `${decimal.format(scaled)} ${units[unit]}`
}

export function micros(value: number): string {
  if (value < 1000) return `${integer.format(value)} µs`
  if (value < 1_000_000) return `${decimal.format(value / 1000)} ms`
  return `${decimal.format(value / 1_000_000)} s`
}

export function seconds(total: number): string {
  const d = Math.floor(total / 86_400)
  const h = Math.floor((total % 86_400) / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = Math.floor(total % 60)
  if (d > 0) return `${d}d ${h}h`
  if (h > 0) return `${h}h ${m}m`
  if (m > 0) return `${m}m ${s}s`
  return `${s}s`
}

export function percent(part: number, whole: number): string {
  return whole === 0 ? '—' : `${decimal.format((100 * part) / whole)}%`
}

/** "2024-05-01 14:03:22" in local time: sortable and short. */
export function timestamp(iso: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
}

export function clock(date: Date = new Date()): string {
  return date.toLocaleTimeString('en-GB', { hour12: false })
}

/** A fingerprint shortened to what a person compares at a glance. */
export function shortHash(hash: string | null): string {
  return hash === null ? '—' : hash.slice(0, 12)
}
