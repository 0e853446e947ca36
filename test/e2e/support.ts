/**
 * End-to-end helpers: run the BUILT `awl` (dist/cli/main.cjs, `npm run build` first) in an isolated home and
 * project folder, against the local replay server, with wire-shaped scripted responses for each provider.
 */
import { spawn } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach } from "vitest";
import { removeTree } from "../support/remove-tree.js";
import { machineTempDir, tempDir } from "../support/temp-dir.js";
import { sseData, sseEvents, startReplayServer, type LoggedRequest, type ReplayServer } from "../support/replay-server.js";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const AWL = join(REPO, "dist/cli/main.cjs");
export const EXAMPLES = join(REPO, "examples/extensions");

export interface AwlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A replay server and a sandbox for each test of the file: made before it (handed to `use`), removed after it. */
export function withServerAndSandbox(use: (made: { server: ReplayServer; box: Sandbox }) => void): void {
  let made: { server: ReplayServer; box: Sandbox } | undefined;
  beforeEach(async () => {
    made = { server: await startReplayServer(), box: sandbox() };
    use(made);
  });
  afterEach(async () => {
    await made?.server.close();
    made?.box.remove();
  });
}

/** The names of the tools a request offered, in the provider's wire shape. */
export function toolNamesOffered(provider: "openai" | "anthropic", request: LoggedRequest): string[] {
  return (request.json().tools ?? []).map((t: { name?: string; function?: { name: string } }) => (provider === "openai" ? t.function!.name : t.name!));
}

/** A throwaway project folder (`cwd`) and home (`HOME`, all XDG folders inside it). */
export interface Sandbox {
  root: string;
  cwd: string;
  home: string;
  /** Writes `.awl/extensions/<relative>` in the project. */
  extension(relative: string, source: string): string;
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  /** Runs `node dist/cli/main.cjs ...args` in the project. */
  awl(args: readonly string[], options?: { env?: Record<string, string>; input?: string; asNobody?: boolean }): Promise<AwlRun>;
  remove(): void;
}

/**
 * Made in the machine's temp folder, which is awl's temp folder too (as /tmp holds a user's work there): the file
 * names Lua reports stay as short as a user's, and the sandbox's tests see a home inside the writable temp folder.
 */
export function sandbox(): Sandbox {
  const root = tempDir("awl-e2e-", { parent: machineTempDir() });
  const cwd = join(root, "project");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  const box: Sandbox = {
    root,
    cwd,
    home,
    extension(relative, source) {
      const file = join(cwd, ".awl/extensions", relative);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, source);
      return file;
    },
    env(extra = {}) {
      const env: NodeJS.ProcessEnv = {};
      for (const key of ["PATH", "LANG", "TZ", "SYSTEMROOT"]) if (process.env[key] !== undefined) env[key] = process.env[key];
      return { ...env, TMPDIR: dirname(root), HOME: home, NO_COLOR: "1", ...extra };
    },
    awl(args, options = {}) {
      return runNode([AWL, ...args], { cwd, env: box.env(options.env), input: options.input ?? "", asNobody: options.asNobody ?? false });
    },
    remove() {
      removeTree(root);
    },
  };
  return box;
}

/** Copies the example extensions into the sandbox's project (`.awl/extensions/`). */
export function installExamples(box: Sandbox, names: readonly string[]): void {
  for (const name of names) cpSync(join(EXAMPLES, name), join(box.cwd, ".awl/extensions", name), { recursive: true });
}

/**
 * Spawns node asynchronously (the replay server lives in this process and must keep answering).
 * `asNobody`: when the tests run as root, the child runs as uid/gid 65534 so file permissions apply to it.
 */
export function runNode(args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; input: string; asNobody: boolean }): Promise<AwlRun> {
  return new Promise((done, fail) => {
    const ids = options.asNobody && process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"], ...ids });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
    // A child that exits before reading its input (a usage error) closes the pipe: not a failure of the test.
    child.stdin.on("error", () => {});
    child.stdin.end(options.input);
  });
}

/** Lets a child running as nobody read and write the sandbox (its parents are root-owned 0700 temp folders otherwise). */
export function openSandboxToNobody(box: Sandbox): void {
  if (process.getuid?.() !== 0) return;
  for (const dir of [box.root, box.cwd, box.home]) chmodSync(dir, 0o777);
}

// ---- Wire shapes -------------------------------------------------------------------------------------------

export interface ScriptedCall {
  id: string;
  name: string;
  input: unknown;
}

/** OpenAI-compatible: an assistant message that calls tools (arguments streamed in two fragments each). */
export function openaiToolCalls(calls: readonly ScriptedCall[], text?: string): string {
  const chunk = (delta: unknown, finish: string | null = null): unknown => ({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const events: unknown[] = [chunk({ role: "assistant", content: text ?? null })];
  calls.forEach((call, index) => {
    const args = JSON.stringify(call.input);
    const half = Math.floor(args.length / 2);
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: args.slice(0, half) } }] }));
    events.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
  });
  events.push(chunk({}, "tool_calls"), { id: "chatcmpl-1", choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }, "[DONE]");
  return sseData(events);
}

/** OpenAI-compatible: a plain text answer. */
export function openaiText(text: string): string {
  const chunk = (delta: unknown, finish: string | null = null): unknown => ({ id: "chatcmpl-2", choices: [{ index: 0, delta, finish_reason: finish }] });
  return sseData([chunk({ role: "assistant", content: text }), chunk({}, "stop"), "[DONE]"]);
}

/** Anthropic Messages: an assistant message that calls tools. */
export function anthropicToolCalls(calls: readonly ScriptedCall[], text?: string): string {
  const events: { event: string; data: unknown }[] = [
    { event: "message_start", data: { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } } },
  ];
  let index = 0;
  if (text !== undefined) {
    events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: { type: "text", text: "" } } });
    events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta: { type: "text_delta", text } } });
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
    index++;
  }
  for (const call of calls) {
    const args = JSON.stringify(call.input);
    const half = Math.floor(args.length / 2);
    events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } } });
    for (const part of [args.slice(0, half), args.slice(half)]) {
      events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: part } } });
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
    index++;
  }
  events.push({ event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 20 } } });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return sseEvents(events);
}

/** Anthropic Messages: a plain text answer. */
export function anthropicText(text: string): string {
  return sseEvents([
    { event: "message_start", data: { type: "message_start", message: { id: "msg_2", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, usage: { input_tokens: 30, output_tokens: 1 } } } },
    { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } } },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 5 } } },
    { event: "message_stop", data: { type: "message_stop" } },
  ]);
}

/** Settings that point awl at the replay server as the given provider. */
export function providerEnv(provider: "openai" | "anthropic", url: string): Record<string, string> {
  return {
    AWL_PROVIDER: provider,
    AWL_BASE_URL: provider === "openai" ? `${url}/v1` : url,
    AWL_API_KEY: "test-key",
    AWL_MODEL: "test-model",
  };
}

/** Runs `awl -p` with one scripted batch of tool calls (then a text answer); the results the model got back, by call id. */
export async function runToolBatch(server: ReplayServer, box: Sandbox, calls: readonly ScriptedCall[], flags: readonly string[]): Promise<Record<string, string>> {
  server.enqueue({ body: openaiToolCalls(calls) }, { body: openaiText("done") });
  const result = await box.awl(["-p", "go", ...flags], { env: providerEnv("openai", server.url) });
  if (result.code !== 0) throw new Error(`awl exited with ${result.code}:\n${result.stderr}`);
  const messages = server.requests.at(-1)!.json().messages as { role: string; tool_call_id?: string; content: string }[];
  return Object.fromEntries(messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id!, m.content]));
}

/** The tool results an OpenAI-format request sent back, by call id. */
export function resultsIn(request: { json(): any }): Record<string, string> {
  const tools = request.json().messages.filter((m: any) => m.role === "tool");
  return Object.fromEntries(tools.map((m: any) => [m.tool_call_id, m.content]));
}
