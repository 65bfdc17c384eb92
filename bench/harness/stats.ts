// Order statistics over repetitions. The median is the figure the harness reports;
// quantiles are for latency samples (p99 of n samples is the ceil(0.99 n)-th).

export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) throw new Error('quantile of no samples')
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of no samples')
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] as number : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

export interface LatencySummary { n: number; p50: number; p99: number; max: number }

export function latencySummary(xs: readonly number[]): LatencySummary {
  return { n: xs.length, p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), max: Math.max(...xs) }
}
