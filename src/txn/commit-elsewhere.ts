// The gate of a database attached from another thread (docs/architecture.md, "Every
// core"): it reads the shared engine, and every commit is the opening thread's, whose
// committer keeps first-committer-wins and the LSN order. A commit tried here is
// refused before anything is written, so the whole request that tried it can be run
// again on the opening thread (src/http/threads/), where it commits.
import { CodedError } from '../coded-error.js'
import type { CommitGate } from './commit-gate.js'

/** A commit tried on a thread that does not commit: nothing was written; run the work where commits are made. */
export class CommitElsewhereError extends CodedError<'commit_elsewhere'> {
  constructor() {
    super('commit_elsewhere', 'this thread reads only: commits are made by the thread that opened the database')
  }
}

export const commits_elsewhere: CommitGate = {
  admit() {
    throw new CommitElsewhereError()
  },
  acknowledged() {
    return Promise.reject(new CommitElsewhereError())
  },
}
