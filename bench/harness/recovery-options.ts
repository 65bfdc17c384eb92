// Engine options under which a WAL grows without a checkpoint (P8): the writer and
// every reopening use the same, so reopening replays all of it.
import type { EngineOptions } from '../../src/engine/index.js'

export const no_checkpoint: EngineOptions = {
  checkpointWalBytes: 4 * 1024 ** 3,
  tailRetentionBytes: 8 * 1024 ** 3,
}
