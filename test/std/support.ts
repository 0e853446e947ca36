/**
 * Helpers for the bundled std tools' tests: one call through `awl tool call --json`, and one replayed model turn
 * (the model calls the tool, awl runs it and sends the result back) through `awl -p` against the replay server.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, expect } from "vitest";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, sandbox, type Sandbox } from "../e2e/support.js";
import type { ToolOutcome } from "../../src/tools/types.js";

/** The bundled std tools' names (one `extensions/std/NAME.lua` each), sorted. */
export const STD_TOOLS: readonly string[] = readdirSync(new URL("../../extensions/std/", import.meta.url))
  .filter((f) => f.endsWith(".lua") && !f.startsWith("_")) // `_text.lua`: shared modules, not tools
  .map((f) => f.slice(0, -".lua".length))
  .sort();

/**
 * Each `awl tool call` or `awl -p` costs a second or more on a busy machine (several at a load of 30): tests making
 * several get room for them.
 */
export const SEVERAL_CALLS = { timeout: 120_000 };

/** A fresh sandbox and replay server for each test of the file; read them through the getters. */
export function useSandbox(): { readonly box: Sandbox; readonly server: ReplayServer } {
  let box: Sandbox | undefined;
  let server: ReplayServer | undefined;
  beforeEach(async () => {
    box = sandbox();
    server = await startReplayServer();
  });
  afterEach(async () => {
    await server?.close();
    box?.remove();
  });
  return {
    get box() {
      return box!;
    },
    get server() {
      return server!;
    },
  };
}

/** `awl tool call NAME JSON --json` in the sandbox's project: the outcome and the exit code. */
export async function callTool(box: Sandbox, name: string, input: unknown, args: string[] = []): Promise<{ outcome: ToolOutcome; code: number | null; stderr: string }> {
  const run = await box.awl(["tool", "call", name, JSON.stringify(input), "--json", ...args]);
  let outcome: ToolOutcome;
  try {
    outcome = JSON.parse(run.stdout) as ToolOutcome;
  } catch {
    throw new Error(`awl tool call printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
  return { outcome, code: run.code, stderr: run.stderr };
}

/** The text of a `result` outcome, failing the test otherwise. */
export function textOf(outcome: ToolOutcome): string {
  if (outcome.status !== "result") throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return outcome.content;
}

/**
 * A turn in which the model (OpenAI-compatible) calls `name` with `input` (allowed with `--allow NAME`: these tests are about
 * the tool, not about permissions), then answers "done": returns the tool
 * message awl sent back, and the whole run. `env`: variables added to awl's (e.g. a PATH without ripgrep).
 */
export async function replayedCall(
  box: Sandbox,
  server: ReplayServer,
  name: string,
  input: unknown,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ content: string; stdout: string; stderr: string; code: number | null }> {
  server.enqueue({ body: openaiToolCalls([{ id: "call_1", name, input }]) }, { body: openaiText("done") });
  const run = await box.awl(["-p", "go", "--no-session", "--allow", name, ...args], { env: { ...providerEnv("openai", server.url), ...env } });
  const answer = server.requests.at(-1)!.json();
  const message = answer.messages.find((m: { role: string }) => m.role === "tool");
  expect(message, `no tool result was sent back:\n${run.stderr}`).toBeDefined();
  return { content: message.content as string, stdout: run.stdout, stderr: run.stderr, code: run.code };
}

/** Writes `files` (relative path → text) below `root`, with the folders they need. */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
}
