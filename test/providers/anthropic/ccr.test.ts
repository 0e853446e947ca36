/**
 * A real third-party Anthropic stream encoder: claude-code-router 1.0.73 (`ccr start`) takes awl's Anthropic
 * `/v1/messages` request, translates it for an OpenAI-compatible upstream (the replay server), and re-encodes
 * the upstream's stream as Anthropic SSE, which awl's Anthropic provider must assemble. Offline: ccr runs from
 * node_modules with HOME pointed at a temporary folder holding its config.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Conversation, toolResult } from "../../../src/model/conversation.js";
import { createAnthropicProvider } from "../../../src/providers/anthropic/provider.js";
import type { Provider, ToolSpec } from "../../../src/providers/types.js";
import { recordingReceiver } from "../../support/recording-receiver.js";
import { sseData, startReplayServer, type ReplayServer } from "../../support/replay-server.js";
import { tempDir } from "../../support/temp-dir.js";

const CCR_CLI = fileURLToPath(new URL("../../../node_modules/@musistudio/claude-code-router/dist/cli.js", import.meta.url));

let upstream: ReplayServer;
let home: string;
let ccr: ChildProcess;
let ccrOutput = "";
let provider: Provider;

beforeAll(async () => {
  upstream = await startReplayServer();
  home = tempDir("awl-ccr-");
  const port = await freePort();
  mkdirSync(join(home, ".claude-code-router"));
  writeFileSync(
    join(home, ".claude-code-router", "config.json"),
    JSON.stringify({
      PORT: port,
      LOG: false,
      Providers: [{ name: "replay", api_base_url: `${upstream.url}/v1/chat/completions`, api_key: "upstream-key", models: ["replay-model"] }],
      Router: { default: "replay,replay-model" },
    }),
  );
  // No proxy variables: ccr must reach the replay server on 127.0.0.1 directly.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/_proxy$/i.test(name)));
  ccr = spawn(process.execPath, [CCR_CLI, "start"], { cwd: home, env: { ...env, HOME: home, USERPROFILE: home }, stdio: ["ignore", "pipe", "pipe"] });
  ccr.stdout!.on("data", (chunk: Buffer) => (ccrOutput += chunk.toString()));
  ccr.stderr!.on("data", (chunk: Buffer) => (ccrOutput += chunk.toString()));
  await waitForPort(port, 20_000);
  provider = createAnthropicProvider({
    provider: "anthropic",
    model: "replay-model",
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: "sk-ant-unused",
    maxRetries: 0,
    stallTimeoutMs: 10_000,
  });
});

afterAll(async () => {
  if (ccr && ccr.exitCode === null) {
    const exited = new Promise((resolve) => ccr.once("exit", resolve));
    ccr.kill("SIGTERM");
    await exited;
  }
  await upstream?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

beforeEach(() => {
  upstream.requests.length = 0;
});

/** An OpenAI chat.completion.chunk with one choice. */
function chunk(delta: Record<string, unknown>, finish: string | null = null, usage?: Record<string, number>): Record<string, unknown> {
  const c: Record<string, unknown> = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "replay-model", choices: [{ index: 0, delta, finish_reason: finish }] };
  if (usage) c.usage = usage;
  return c;
}

const toolCall = (index: number, id: string | undefined, name: string | undefined, args: string) => ({
  tool_calls: [{ index, ...(id ? { id, type: "function" } : {}), function: { ...(name ? { name } : {}), arguments: args } }],
});

const TOOLS: ToolSpec[] = [
  { name: "read", description: "Read a file.", schema: '{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}' },
  { name: "ls", description: "List files.", schema: '{"type":"object","properties":{}}' },
];

const question = () =>
  new Conversation([
    { role: "system", content: [{ type: "text", text: "You are awl." }] },
    { role: "user", content: [{ type: "text", text: "Read a.txt and list files." }] },
  ]);

describe("claude-code-router 1.0.73 re-encoding an OpenAI-compatible stream as Anthropic SSE", () => {
  it("assembles text and two parallel tool calls", async () => {
    upstream.enqueue({
      body: sseData([
        chunk({ role: "assistant", content: "I'll " }),
        chunk({ content: "look." }),
        chunk(toolCall(0, "call_read", "read", '{"pa')),
        chunk(toolCall(0, undefined, undefined, 'th":"a.txt"}')),
        chunk(toolCall(1, "call_ls", "ls", "")),
        chunk({}, "tool_calls", { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 }),
        "[DONE]",
      ]).split(/(?<=\n\n)/),
    });
    const receiver = recordingReceiver();
    const result = await provider.streamStep(question(), receiver, { tools: TOOLS });
    if (!result.ok) throw new Error(`${result.error.message}\nccr output:\n${ccrOutput}`);
    expect(result.message.content).toEqual([
      { type: "text", text: "I'll look." },
      { type: "tool_use", id: "call_read", name: "read", input: '{"path":"a.txt"}' },
      { type: "tool_use", id: "call_ls", name: "ls", input: "{}" },
    ]);
    expect([result.message.stop_reason, result.message.usage]).toEqual(["tool_use", { input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 0 }]);
    expect(receiver.calls.at(-1)).toBe("complete tool_use");

    // ccr understood awl's Anthropic request: system, user text and both tools reached the upstream.
    const sent = upstream.requests[0]!.json();
    expect(sent.messages[0]).toMatchObject({ role: "system" });
    expect(JSON.stringify(sent.messages[0])).toContain("You are awl.");
    expect(sent.tools.map((t: { function: { name: string; parameters: unknown } }) => [t.function.name, t.function.parameters])).toEqual(
      TOOLS.map((tool) => [tool.name, JSON.parse(tool.schema)]),
    );
  });

  it("assembles parallel tool calls whose arguments the upstream interleaves (ccr sends them after stopping the block)", async () => {
    upstream.enqueue({
      body: sseData([
        chunk(toolCall(0, "call_a", "read", "")),
        chunk(toolCall(1, "call_b", "ls", "")),
        chunk(toolCall(0, undefined, undefined, '{"path":')),
        chunk(toolCall(0, undefined, undefined, '"b.txt"}')),
        chunk({}, "tool_calls"),
        "[DONE]",
      ]),
    });
    const result = await provider.streamStep(question(), recordingReceiver(), { tools: TOOLS });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.message.content).toEqual([
      { type: "tool_use", id: "call_a", name: "read", input: '{"path":"b.txt"}' },
      { type: "tool_use", id: "call_b", name: "ls", input: "{}" },
    ]);
  });

  it("sends tool results back through ccr as OpenAI tool messages, and assembles the answer", async () => {
    upstream.enqueue({ body: sseData([chunk({ role: "assistant", content: "a.txt says hello; 2 files." }), chunk({}, "stop"), "[DONE]"]) });
    const conversation = question();
    conversation.addMessage({
      role: "assistant",
      content: [
        { type: "tool_use", id: "call_read", name: "read", input: '{"path":"a.txt"}' },
        { type: "tool_use", id: "call_ls", name: "ls", input: "{}" },
      ],
      stop_reason: "tool_use",
    });
    conversation.addToolResults([toolResult("call_read", "hello"), toolResult("call_ls", "no access", true)]);
    const result = await provider.streamStep(conversation, recordingReceiver(), { tools: TOOLS });
    expect(result).toMatchObject({ ok: true, message: { content: [{ type: "text", text: "a.txt says hello; 2 files." }], stop_reason: "end_turn" } });
    const sent = upstream.requests[0]!.json();
    const toolMessages = sent.messages.filter((m: { role: string }) => m.role === "tool");
    expect(toolMessages.map((m: { tool_call_id: string; content: string }) => [m.tool_call_id, m.content])).toEqual([
      ["call_read", "hello"],
      ["call_ls", "Error: no access"], // ccr drops is_error on the way: the text still says the call failed
    ]);
  });

  it("an upstream error payload becomes ccr's in-stream error event, classified by its type (server_error: retried)", async () => {
    upstream.enqueue({ body: sseData([{ error: { message: "model is loading", type: "server_error" } }, "[DONE]"]) });
    const result = await provider.streamStep(question(), recordingReceiver(), { tools: TOOLS });
    expect(result).toMatchObject({ ok: false, error: { kind: "server", retryable: true, message: expect.stringContaining("model is loading") } });
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (ccr.exitCode !== null) throw new Error(`ccr exited with code ${ccr.exitCode}:\n${ccrOutput}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`ccr did not listen on port ${port} within ${timeoutMs} ms:\n${ccrOutput}`);
}
