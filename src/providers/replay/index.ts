import { ProviderConfigError } from "../errors.js";
import type { ProviderSettings } from "../types.js";
import { ReplayProvider } from "./replay-provider.js";
import { readReplayScript } from "./script.js";

export { ReplayProvider } from "./replay-provider.js";
export { ReplayRecorder } from "./recorder.js";
export { readReplayScript, parseReplayScript, REPLAY_FORMAT_VERSION, DEFAULT_PACING } from "./script.js";
export type { ReplayScript, ReplayStep, Pacing } from "./script.js";

/** The replay provider for `settings.replayFile`; an unreadable or malformed script throws {@link ProviderConfigError}. */
export function createReplayProvider(settings: ProviderSettings): ReplayProvider {
  const read = readReplayScript(settings.replayFile ?? "");
  if (!read.ok) throw new ProviderConfigError(read.error);
  return new ReplayProvider(read.script, settings.model);
}
