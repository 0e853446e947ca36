/**
 * Session errors and warnings are values with a kind, never thrown across the session API.
 * An error stops the operation; a warning says what was recovered or skipped while the rest still loaded.
 */

export type SessionErrorKind =
  /** The file system refused: permission, full disk, missing folder, ... */
  | "io"
  /** The file is not a session file awl can make sense of (no valid header line). */
  | "format"
  /** The file was written by a newer awl (a format version this reader does not know). */
  | "version"
  /** No session has that id or prefix. */
  | "not_found"
  /** A prefix names more than one session. */
  | "ambiguous"
  /** Another running awl is writing this session (its `.lock` names its pid). */
  | "locked";

export interface SessionError {
  kind: SessionErrorKind;
  /** What happened, where, and what to do, in words a user can act on. */
  message: string;
  /** The file or folder concerned. */
  path: string;
  /** The system error code (ENOSPC, EACCES, ...), for `io` errors. */
  code?: string;
}

export type SessionWarningKind =
  /** The last line was cut short (kill, power loss): it is ignored, and trimmed before the next append. */
  | "torn_tail"
  /** A complete line in the middle is not a valid entry (hand-edited?): skipped, the rest recovered. */
  | "invalid_line"
  /** A large output stored beside the session is gone: a placeholder stands in for it. */
  | "missing_side_file"
  /** A session file that could not be listed (unreadable, no header). */
  | "unreadable";

export interface SessionWarning {
  kind: SessionWarningKind;
  message: string;
  path: string;
  /** 1-based line number in the session file, when the warning is about one line. */
  line?: number;
}

export type SessionResult<T> = { ok: true; value: T } | { ok: false; error: SessionError };

export function ok<T>(value: T): SessionResult<T> {
  return { ok: true, value };
}

export function fail<T>(kind: SessionErrorKind, message: string, path: string, code?: string): SessionResult<T> {
  const error: SessionError = { kind, message, path };
  if (code !== undefined) error.code = code;
  return { ok: false, error };
}

/** What the user can do about common system error codes. */
const ADVICE: Record<string, string> = {
  EACCES: "permission denied; check the owner and mode of the file (sessions are private to the user who created them)",
  EPERM: "operation not permitted; check the owner and mode of the file",
  ENOSPC: "the disk is full; free some space, the conversation in memory is intact and will be saved on the next attempt",
  EDQUOT: "the disk quota is exceeded; free some space, the conversation in memory is intact and will be saved on the next attempt",
  EROFS: "the file system is read-only",
  ENOENT: "no such file or folder",
  EISDIR: "a folder is in the way of the file",
  ENOTDIR: "a file is in the way of a folder in the path",
  EMFILE: "too many open files",
};

/** An `io` error from a failed system call: `action` says what awl was doing ("append to", "read", ...). */
export function ioFailure<T>(cause: unknown, action: string, path: string): SessionResult<T> {
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String((cause as { code: unknown }).code) : undefined;
  const reason = (code && ADVICE[code]) ?? (cause instanceof Error ? cause.message : String(cause));
  return fail("io", `cannot ${action} ${path}: ${reason}${code ? ` (${code})` : ""}`, path, code);
}
