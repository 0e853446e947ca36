export { SessionStore, type SessionStoreOptions, type NewSession } from "./store.js";
export { SessionWriter } from "./writer.js";
export type { LoadedSession, SessionCall } from "./reader.js";
export type { SessionSummary, ModelTokens } from "./summary.js";
export { exportSession, type ExportFormat } from "./export.js";
export { forkSession } from "./fork.js";
export { branchTo, leavesOf, type TreeNode } from "./tree.js";
export { defaultSessionDir } from "./paths.js";
export { SESSION_ENDED_RESULT } from "./resume.js";
export { DEFAULT_SIDE_FILE_THRESHOLD, type WriterIO } from "./side-files.js";
export {
  SESSION_FORMAT_VERSION,
  type SessionHeader,
  type SessionEntry,
  type SessionEvent,
  type ToolSnapshot,
} from "./format.js";
export type { SessionError, SessionErrorKind, SessionWarning, SessionWarningKind, SessionResult } from "./errors.js";
export { SessionRecorder } from "./recorder.js";
export { knownSecrets, REDACTED } from "../util/secrets.js";
