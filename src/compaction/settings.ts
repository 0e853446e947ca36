/**
 * The config files' `compaction` key (docs/compaction.md): `{"threshold_percent": 80, "auto": true}`. The files'
 * values were checked against the schema when read (a wrong one stopped awl naming file, line and key).
 */
import { DEFAULT_THRESHOLD_PERCENT } from "./compactor.js";

export interface CompactionSettings {
  thresholdPercent: number;
  auto: boolean;
}

/** The settings from the key's value, awl's defaults for what it leaves out. */
export function compactionSettings(value: { threshold_percent?: number; auto?: boolean } | undefined): CompactionSettings {
  return { thresholdPercent: value?.threshold_percent ?? DEFAULT_THRESHOLD_PERCENT, auto: value?.auto ?? true };
}
