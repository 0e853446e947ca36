/** Checkpoints of a workspace and rewinding to them (docs/checkpoints.md): the store, restores, pruning. */
export { CheckpointStore, defaultCheckpointDir, type CheckpointRecord, type CheckpointWhen, type TakeCheckpoint } from "./store.js";
export { rewindCode, checkpointBefore, finishInterrupted, type RewindCodeRequest, type RewindCodeOutcome } from "./rewind.js";
export { planRestore, type RestorePlan, type RestoreOp } from "./restore.js";
export { pruneCheckpoints, DEFAULT_RETENTION_DAYS, type PruneOutcome } from "./prune.js";
export { DEFAULT_LIMITS, type ScanLimits, type Skipped } from "./scan.js";
