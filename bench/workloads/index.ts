// The workloads of docs/performance.md, in order.
import type { Workload } from '../harness/workload.js'
import { p01 } from './p01-durable-insert.js'
import { p02 } from './p02-group-commit.js'
import { p03 } from './p03-point-read.js'
import { p04 } from './p04-bulk-insert.js'
import { p05 } from './p05-scan.js'
import { p06 } from './p06-fork-snapshot.js'
import { p07 } from './p07-diff.js'
import { p08 } from './p08-recovery.js'
import { p09 } from './p09-http-point.js'
import { p10 } from './p10-tail.js'
import { p11 } from './p11-compaction.js'
import { p12 } from './p12-memory.js'
import { p13 } from './p13-space.js'
import { p14 } from './p14-replication.js'
import { p15 } from './p15-lookup-tree-order.js'

export const workloads: readonly Workload[] = [p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15]
