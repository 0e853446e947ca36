/**
 * The CLI's checkpoints (docs/checkpoints.md): the `checkpoints` settings of the config, and the run's
 * TurnCheckpoints (checkpoints/turn-checkpoints.ts) as a turn hook of the runtime.
 */
import { resolve } from "node:path";
import { Checkpointer } from "../checkpoints/checkpointer.js";
import { defaultCheckpointDir } from "../checkpoints/store.js";
import type { ScanLimits } from "../checkpoints/scan.js";
import { DEFAULT_RETENTION_DAYS } from "../checkpoints/prune.js";
import { TurnCheckpoints } from "../checkpoints/turn-checkpoints.js";
import type { LoadedConfig } from "../config/layers.js";
import { defaultSessionDir } from "../session/paths.js";
import { awlDataDir } from "../config/paths.js";
import type { Runtime } from "./runtime.js";
import type { SessionHook } from "./session-hook.js";

/** The config files' `checkpoints` key. */
export interface CheckpointSettings {
  enabled?: boolean;
  max_files?: number;
  max_file_size?: number;
  retention_days?: number;
}

/** The checkpoint hook for this run, unless the config turns checkpoints off. */
export function setupCheckpoints(
  runtime: Runtime,
  sessions: SessionHook,
  config: LoadedConfig | undefined,
  cwd: string,
  warn: (text: string) => void,
): TurnCheckpoints | undefined {
  const settings = config?.get<CheckpointSettings>("checkpoints")?.value ?? {};
  if (settings.enabled === false) return undefined;
  const dir = defaultCheckpointDir();
  const limits: Partial<ScanLimits> = {
    ...(settings.max_files !== undefined && { maxFiles: settings.max_files }),
    ...(settings.max_file_size !== undefined && { maxFileSize: settings.max_file_size }),
  };
  // Never recorded (docs/checkpoints.md): awl's own data folder (checkpoints, sessions, spilled results, the
  // sign-ins' private files and their tokens) and the checkpoint and session folders wherever they are.
  const checkpointer = new Checkpointer(dir, [dir, defaultSessionDir(), awlDataDir(process.env)], { sessionDir: defaultSessionDir(), days: settings.retention_days ?? DEFAULT_RETENTION_DAYS });
  return new TurnCheckpoints(checkpointer, resolve(cwd), limits, warn, runtime, (message) => sessions.messageId(message));
}
