// ISO-8601 timestamps as schema files and migrations accept them. A time of day must
// carry its zone (Z or ±hh:mm): a zone-less time would be read in the server's local
// zone, so the same schema would give different IR (and fingerprints) on different hosts.
const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/

export function parseIsoTimestamp(text: string): Date | null {
  if (!ISO.test(text)) return null
  const date = new Date(text)
  return Number.isNaN(date.getTime()) ? null : date
}
