// Timestamps as queries and rows write them: ISO-8601 text.
/** ISO-8601; a time without a zone is UTC, so results never depend on the host's zone. */
export function parseTimestamp(text: string): Date | null {
  const match = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/.exec(text)
  if (match === null) return null
  const date = new Date(match[1] !== undefined && match[4] === undefined ? `${text}Z` : text)
  return Number.isNaN(date.getTime()) ? null : date
}
