/**
 * Reads a replay script: JSON Lines, version 1 (docs/replay-format.md). Each line is one scripted step:
 * an assistant message in the documented message JSON form (optionally with `"replay": {chunk, delay_ms}`)
 * or `{"error": {...}}` for a failure. An optional first line `{"awl_replay": 1, ...}` sets file-wide pacing.
 */
import { readFileSync } from "node:fs";
import type { Message } from "../../model/message.js";
import { FormatError, messageFromJSON } from "../../model/json.js";
import { providerError, type ProviderError, type ProviderErrorKind } from "../errors.js";

export const REPLAY_FORMAT_VERSION = 1;

/** How a scripted message is streamed: `chunk` characters per delta, `delay_ms` before each delta. */
export interface Pacing {
  chunk: number;
  delay_ms: number;
}

export const DEFAULT_PACING: Pacing = { chunk: 6, delay_ms: 0 };

export type ReplayStep =
  | { kind: "message"; message: Message; pacing: Pacing; line: number }
  | { kind: "error"; error: ProviderError; line: number };

export interface ReplayScript {
  path: string;
  steps: ReplayStep[];
}

const ERROR_KINDS: ReadonlySet<string> = new Set<ProviderErrorKind>([
  "auth", "bad_request", "context_length", "rate_limit", "overloaded", "server", "stream_error", "bad_response", "network", "truncated", "stalled",
]);

/** Reads and checks a script file; problems come back as a `config` error naming the file and line. */
export function readReplayScript(path: string): { ok: true; script: ReplayScript } | { ok: false; error: ProviderError } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    return { ok: false, error: providerError("config", `cannot read the replay script ${path} (${code})`) };
  }
  try {
    return { ok: true, script: parseReplayScript(path, text) };
  } catch (e) {
    if (e instanceof ScriptError) return { ok: false, error: providerError("config", e.message) };
    throw e;
  }
}

class ScriptError extends Error {}

/** Parses script text; throws `ScriptError` (caught by `readReplayScript`) naming `path:line`. */
export function parseReplayScript(path: string, text: string): ReplayScript {
  const steps: ReplayStep[] = [];
  let pacing = DEFAULT_PACING;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const source = lines[i]!.trim();
    if (source === "") continue;
    const line = i + 1;
    const where = `${path}:${line}`;
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (e) {
      throw new ScriptError(`replay script ${where}: not valid JSON (${(e as Error).message.split("\n")[0]})`);
    }
    if (!isObject(value)) throw new ScriptError(`replay script ${where}: expected a JSON object on each line`);
    if ("awl_replay" in value) {
      if (steps.length > 0) throw new ScriptError(`replay script ${where}: the {"awl_replay": ...} header must be the first line`);
      if (value.awl_replay !== REPLAY_FORMAT_VERSION)
        throw new ScriptError(`replay script ${where}: this awl plays format version ${REPLAY_FORMAT_VERSION}, the file says ${JSON.stringify(value.awl_replay)}`);
      pacing = readPacing(value, DEFAULT_PACING, where);
      continue;
    }
    if ("error" in value) {
      steps.push({ kind: "error", error: readError(value.error, where), line });
      continue;
    }
    steps.push({ kind: "message", message: readMessage(value, where), pacing: readPacing(value.replay ?? {}, pacing, `${where}: replay`), line });
  }
  return { path, steps };
}

function readMessage(value: Record<string, unknown>, where: string): Message {
  let message: Message;
  try {
    message = messageFromJSON(value, "message");
  } catch (e) {
    if (e instanceof FormatError) throw new ScriptError(`replay script ${where}: ${e.message}`);
    throw e;
  }
  if (message.role !== "assistant") throw new ScriptError(`replay script ${where}: each scripted message must have role "assistant"`);
  if (message.content.some((b) => b.type === "tool_result"))
    throw new ScriptError(`replay script ${where}: an assistant message cannot hold tool_result blocks (awl writes those)`);
  message.stop_reason ??= message.content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  return message;
}

function readPacing(value: unknown, base: Pacing, where: string): Pacing {
  if (!isObject(value)) throw new ScriptError(`replay script ${where}: expected an object`);
  const read = (key: keyof Pacing, min: number): number => {
    const v = value[key];
    if (v === undefined) return base[key];
    if (!Number.isSafeInteger(v) || (v as number) < min) throw new ScriptError(`replay script ${where}: "${key}" must be a whole number ≥ ${min}`);
    return v as number;
  };
  return { chunk: read("chunk", 1), delay_ms: read("delay_ms", 0) };
}

function readError(value: unknown, where: string): ProviderError {
  if (!isObject(value) || typeof value.kind !== "string" || !ERROR_KINDS.has(value.kind) || typeof value.message !== "string") {
    throw new ScriptError(`replay script ${where}: "error" needs "kind" (one of ${[...ERROR_KINDS].join(", ")}) and "message"`);
  }
  const extra: { status?: number; retry_after_ms?: number } = {};
  if (typeof value.status === "number") extra.status = value.status;
  if (typeof value.retry_after_ms === "number") extra.retry_after_ms = value.retry_after_ms;
  return providerError(value.kind as ProviderErrorKind, value.message, extra);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
