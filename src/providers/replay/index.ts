export { ReplayProvider } from "./replay-provider.js";
export { ReplayRecorder } from "./recorder.js";
export { readReplayScript, parseReplayScript, REPLAY_FORMAT_VERSION, DEFAULT_PACING } from "./script.js";
export type { ReplayScript, ReplayStep, Pacing } from "./script.js";
