/**
 * The config file's `compaction` key (docs/compaction.md): `{"threshold_percent": 80, "auto": true}`.
 * A wrong value is an error naming the file and the field.
 */
import { DEFAULT_THRESHOLD_PERCENT } from "./compactor.js";

export interface CompactionSettings {
  thresholdPercent: number;
  auto: boolean;
}

export type CompactionSettingsResult = { ok: true; value: CompactionSettings } | { ok: false; error: { message: string; hint: string } };

export function parseCompactionSettings(value: unknown, path: string): CompactionSettingsResult {
  const settings: CompactionSettings = { thresholdPercent: DEFAULT_THRESHOLD_PERCENT, auto: true };
  if (value === undefined) return { ok: true, value: settings };
  const fail = (problem: string): CompactionSettingsResult => ({
    ok: false,
    error: { message: `the config file ${path} key "compaction"${problem}`, hint: "fix the file or remove the key (docs/compaction.md)" },
  });
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail(` must be an object like {"threshold_percent": 80}, got ${JSON.stringify(value)}`);
  for (const [field, raw] of Object.entries(value)) {
    if (field === "threshold_percent") {
      if (typeof raw !== "number" || !Number.isFinite(raw) || raw < 10 || raw > 100) return fail(`.threshold_percent must be a number from 10 to 100, got ${JSON.stringify(raw)}`);
      settings.thresholdPercent = raw;
    } else if (field === "auto") {
      if (typeof raw !== "boolean") return fail(`.auto must be true or false, got ${JSON.stringify(raw)}`);
      settings.auto = raw;
    } else return fail(`.${field} is not a setting awl knows (use threshold_percent, auto)`);
  }
  return { ok: true, value: settings };
}
