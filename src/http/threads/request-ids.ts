// Request ids of a worker thread (docs/operations.md, "Logs"): every thread counts its
// own requests, so a worker's ids name the thread (`req-1.17`) and never repeat one of
// the opening thread's (`req-17`).
export function requestIdsOfThread(thread: number): () => string {
  let next = 0
  return () => `req-${thread}.${++next}`
}
