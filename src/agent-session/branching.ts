/**
 * Rewind, branches and forks of a saved session (docs/checkpoints.md, docs/sessions.md "Branches"), as every surface
 * reaches them: the terminal UI (`/rewind`, `/tree`, `/fork`), stream-json control requests, `awl acp` and
 * `AgentSession`. A runner that saves its session and records checkpoints offers these; others do not.
 */

import type { CheckpointRecord } from "../checkpoints/store.js";

/** What a rewind puts back: the files, the conversation, or both. */
export type RewindMode = "code" | "conversation" | "both";

/** Files changed since a prompt, by how (what restoring to before it would undo). */
export interface FileChangeCounts {
  added: number;
  modified: number;
  deleted: number;
}

/** One user prompt of the branch in use, a point to rewind to. */
export interface RewindPoint {
  /** From 1, in the branch in use. */
  number: number;
  /** The prompt message's id in the session file. */
  id?: string;
  /** The prompt's text. */
  text: string;
  /** When it was saved (ISO 8601). */
  time: string;
  /** The checkpoint taken before its turn, when one can be used for a restore. */
  checkpoint?: string;
  /** The files changed since; absent when the files cannot be restored to before it, with `unavailable` saying why. */
  changes?: FileChangeCounts;
  unavailable?: string;
}

export interface RewindRequest {
  /** The prompt number (from 1, as `rewindPoints` gives it). */
  to: number;
  mode: RewindMode;
  /** Overwrite files changed outside awl since its newest checkpoint (they are named otherwise and nothing is restored). */
  overwriteChanged?: boolean;
  /** Only say what would change. */
  dryRun?: boolean;
}

/** The files a restore writes or deletes, relative to the workspace. */
export interface RestoreChanges {
  /** Put back as they were (they differ now). */
  restore: string[];
  /** Created again (deleted since). */
  create: string[];
  /** Deleted (created since). */
  delete: string[];
}

export type RewindOutcome =
  | {
      status: "restored" | "planned";
      /** The prompt's text (a conversation rewind gives it back to be edited and sent again). */
      prompt: string;
      /** The checkpoint the files were restored from (a code rewind). */
      checkpoint?: string;
      /** What the restore changed (or would change), for a code rewind. */
      files?: RestoreChanges;
    }
  /** Files changed outside awl since its newest checkpoint would be overwritten: named, nothing done. */
  | { status: "conflicts"; prompt: string; conflicts: string[]; files: RestoreChanges }
  | { status: "error"; message: string };

/** One prompt of the session's tree (every branch), in tree order. */
export interface BranchPrompt {
  /** The prompt message's id. */
  id: string;
  text: string;
  time: string;
  /** How many branch points lie above it (0: on the first line of prompts). */
  depth: number;
  /** It starts a branch beside another one (a prompt sent again after a rewind). */
  branchStart: boolean;
  /** The message that switching to this prompt's branch continues from: the newest end below it (the one in use when it is on it). */
  leaf: string;
  /** It is the last prompt of the branch in use. */
  inUse: boolean;
  /** It is on the branch in use. */
  onBranchInUse: boolean;
}

/** What a session runner offers for rewind, branches and forks. */
export interface SessionBranching {
  /** The prompts of the branch in use, with what changed in the files since each. */
  rewindPoints(): Promise<RewindPoint[]>;
  /** Restores the files and/or the conversation as they were before a prompt (the conversation: a new branch). */
  rewind(request: RewindRequest): Promise<RewindOutcome>;
  /** Every prompt of every branch. */
  branches(): BranchPrompt[];
  /** Makes the branch ending at message `leaf` the one in use (nothing is deleted). */
  switchBranch(leaf: string): { ok: true } | { ok: false; message: string };
  /** Copies the branch in use into a new session and continues in it; returns its id. */
  fork(): { ok: true; id: string; from: string } | { ok: false; message: string };
  /** Calls `listener` with each checkpoint saved from now on (stream-json reports their ids). */
  onCheckpoint(listener: (record: CheckpointRecord) => void): void;
  /** Resolves once every checkpoint asked for so far is saved (and given to the listener). */
  checkpointsSaved(): Promise<void>;
}
