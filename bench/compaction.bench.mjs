// Long sessions (issue 14, "Bench"): building the request for a 10 000-message conversation (~50 MB) together with
// the token estimate compaction checks before every call (target p50 ≤ 50 ms). Measured the way a session meets it:
// each request adds a tool call and its result to the conversation, and the provider's per-message wire cache holds
// the JSON of every message it sent before. Beside it, in the same run: the old path (every message serialised
// again, as without the cache) and JSON.stringify of the same messages; and the token estimate's accuracy on the
// recorded fixtures.
import { readFileSync, readdirSync } from "node:fs";
import { Conversation, toolResult } from "../dist/model/conversation.js";
import { Compactor } from "../dist/compaction/compactor.js";
import { estimateMessages } from "../dist/compaction/estimate.js";
import { buildChatRequestBody, createChatWireCache } from "../dist/providers/openai/request.js";
import { resolveCompat } from "../dist/providers/openai/compat.js";
import { buildMessagesRequest } from "../dist/providers/anthropic/request.js";
import { createAnthropicWireCache } from "../dist/providers/anthropic/convert-messages.js";
import { createSseDecoder } from "../dist/providers/sse.js";
import { ChatCompletionAssembler } from "../dist/providers/openai/assembler.js";
import { AnthropicAssembler } from "../dist/providers/anthropic/assembler.js";
import { loadText, percentile } from "./support.mjs";

const RUNS = 9;
const MESSAGES = 10_000;


const line = "    const value = compute(input, options); // a line of source code, about sixty characters\n";
/** One step of a tool loop: the model calls `read`, the tool answers with a few KB of source. */
function addToolStep(c, i) {
  const id = `toolu_${i}`;
  c.addAssistantMessage([{ type: "text", text: `Reading src/module${i}.ts.` }, { type: "tool_use", id, name: "read", input: JSON.stringify({ path: `src/module${i}.ts` }) }], { stop_reason: "tool_use", usage: { input_tokens: 1000 + i, output_tokens: 40 } });
  c.addToolResults([toolResult(id, line.repeat(100 + (i % 50)))]);
}

/** A coding session: prompts, replies that call tools, tool outputs of a few KB (source files, command output). */
function bigConversation() {
  const c = new Conversation();
  c.addSystemMessage("You are a coding agent.");
  for (let i = 0; c.messages.length < MESSAGES; i++) {
    if (i % 10 === 0) c.addUserMessage(`Step ${i}: please look at src/module${i}.ts and fix the failing test.`);
    addToolStep(c, i);
  }
  c.messages.length = MESSAGES;
  if (c.messages.at(-1).role === "assistant") c.messages.pop();
  return c;
}

const tools = ["read", "write", "edit", "bash", "grep", "find", "ls"].map((name) => ({
  name,
  description: `The ${name} tool.`,
  schema: '{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}',
}));

/**
 * p50/p90 of `fn` over RUNS runs after one warm-up; `before` runs untimed ahead of each. Each run starts after a full
 * GC and a pause (so the collector's background sweeping is over and no run pays for an earlier one's garbage).
 */
async function time(fn, before = () => {}) {
  const times = [];
  for (let r = 0; r <= RUNS; r++) {
    before(r);
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const start = performance.now();
    fn();
    if (r > 0) times.push(performance.now() - start);
  }
  return { p50: percentile(times, 0.5), p90: percentile(times, 0.9) };
}

const conversation = bigConversation();
const bytes = Buffer.byteLength(JSON.stringify(conversation.messages));
const compactor = new Compactor({ provider: () => ({ name: "openai" }), contextWindow: () => 200_000 });
const compat = resolveCompat("http://localhost:8080/v1");
const settings = { model: "m", maxTokens: undefined };
const anthropicSettings = { model: "claude-sonnet-4-5", baseUrl: "http://localhost", maxTokens: 8192 };
const openaiBody = (cache) => buildChatRequestBody(conversation, tools, settings, compat, cache);
const anthropicBody = (cache) => buildMessagesRequest(conversation, anthropicSettings, tools, undefined, cache).body;

// Each cached run follows a new tool step, as in a session; the cache was filled by the request before.
let step = 1_000_000;
const grow = () => addToolStep(conversation, step++);
const openaiCache = createChatWireCache();
const anthropicCache = createAnthropicWireCache();
openaiBody(openaiCache);
anthropicBody(anthropicCache);
const cachedOpenAI = await time(() => {
  compactor.estimate(conversation, { tools });
  openaiBody(openaiCache);
}, grow);
const cachedAnthropic = await time(() => {
  compactor.estimate(conversation, { tools });
  anthropicBody(anthropicCache);
}, grow);
// The cached bodies are the uncached ones, byte for byte (test/providers/wire-cache.test.ts proves it case by case).
if (openaiBody(openaiCache) !== openaiBody() || anthropicBody(anthropicCache) !== anthropicBody()) throw new Error("a cached body differs from the uncached one");

const floor = await time(() => JSON.stringify(conversation.messages));
const estimate = await time(() => compactor.estimate(conversation, { tools }));
// Right after a compaction (or on a conversation no provider has counted yet) the estimate walks every message.
const fullEstimate = await time(() => new Compactor({ provider: () => ({ name: "openai" }), contextWindow: () => 200_000 }).estimate(new Conversation(conversation.messages), { tools }));
const oldOpenAI = await time(() => {
  compactor.estimate(conversation, { tools });
  openaiBody();
});
const oldAnthropic = await time(() => {
  compactor.estimate(conversation, { tools });
  anthropicBody();
});
const body = openaiBody(openaiCache);
const encode = await time(() => Buffer.from(openaiBody(openaiCache), "utf8"));

const ms = (t) => `${t.p50.toFixed(1)} ms | ${t.p90.toFixed(1)} ms`;
const met = (t) => (t.p50 <= 50 ? "met" : "**not met**");
console.log(`## Compaction: request building for ${conversation.messages.length} messages (${(bytes / 1e6).toFixed(1)} MB of conversation JSON, ${(body.length / 1e6).toFixed(1)} MB request body), p50 of ${RUNS}, ${loadText()}\n`);
console.log("| what | p50 | p90 |\n| --- | --- | --- |");
console.log(`| baseline: JSON.stringify(messages) | ${ms(floor)} |`);
console.log(`| token estimate alone (the check before every call) | ${ms(estimate)} |`);
console.log(`| token estimate walking every message (no provider count yet, e.g. right after a compaction) | ${ms(fullEstimate)} |`);
console.log(`| old path: estimate + OpenAI body, every message serialised | ${ms(oldOpenAI)} |`);
console.log(`| old path: estimate + Anthropic request, every message serialised | ${ms(oldAnthropic)} |`);
console.log(`| **estimate + OpenAI body from the wire cache** (one new tool step) | ${ms(cachedOpenAI)} |`);
console.log(`| **estimate + Anthropic request from the wire cache** (one new tool step) | ${ms(cachedAnthropic)} |`);
console.log(`| then: the body's UTF-8 bytes for the socket (http.ts; any path pays it) | ${ms(encode)} |\n`);
console.log(`Target p50 ≤ 50 ms: OpenAI ${met(cachedOpenAI)} (${(oldOpenAI.p50 / cachedOpenAI.p50).toFixed(0)}× faster than the old path), Anthropic ${met(cachedAnthropic)} (${(oldAnthropic.p50 / cachedAnthropic.p50).toFixed(0)}× faster).\n`);

// ---- accuracy: awl's estimate of each recorded reply beside the tokens the provider counted for it ----
// The fixtures keep the streamed replies with the provider's usage, not the requests that produced them, so the
// comparison is on what they hold: each reply's text, thinking and tool input against its reported output_tokens.
function assembled(dir, file) {
  const bytesIn = readFileSync(new URL(`../test/fixtures/${dir}/${file}`, import.meta.url));
  const assembler = dir === "openai" ? new ChatCompletionAssembler({}, "bench") : new AnthropicAssembler({});
  let verdict;
  const decoder = createSseDecoder((event) => (verdict ??= assembler.onEvent(event)));
  decoder.push(bytesIn);
  if (verdict === undefined) decoder.end();
  return verdict === "done" ? assembler.finish() : undefined;
}
console.log("## Compaction: token estimate accuracy on the recorded fixtures (estimate ÷ output_tokens reported)\n");
console.log("| fixture | reported output_tokens | awl's estimate | ratio |\n| --- | --- | --- | --- |");
let sumReported = 0;
let sumEstimate = 0;
for (const dir of ["openai", "anthropic"]) {
  for (const file of readdirSync(new URL(`../test/fixtures/${dir}/`, import.meta.url)).sort()) {
    const message = assembled(dir, file);
    const reported = message?.usage?.output_tokens;
    if (!message || !reported || reported < 5) continue;
    const estimated = estimateMessages([message]) - 4; // without the per-message overhead: output tokens only
    sumReported += reported;
    sumEstimate += estimated;
    console.log(`| ${dir}/${file} | ${reported} | ${estimated} | ${(estimated / reported).toFixed(2)} |`);
  }
}
console.log(`| all | ${sumReported} | ${sumEstimate} | ${(sumEstimate / sumReported).toFixed(2)} |\n`);

// ---- accuracy on the input side: the fixtures hold no requests, so awl's estimate of whole conversations is set
// beside an offline count by OpenAI's o200k_base tokenizer (tiktoken) of what the model reads of each message (text,
// thinking, tool names and inputs, tool outputs) plus 4 tokens a message (the chat format's markers). Anthropic's
// tokenizer is not public: no offline count exists for Claude.
const { get_encoding } = await import("tiktoken");
const encoder = get_encoding("o200k_base");
function o200kTokens(messages) {
  let tokens = 0;
  for (const message of messages) {
    tokens += 4;
    for (const b of message.content) {
      const text = b.type === "text" ? b.text : b.type === "thinking" ? b.thinking : b.type === "tool_use" ? `${b.name} ${b.input}` : b.content;
      tokens += encoder.encode(text).length;
    }
  }
  return tokens;
}
const samples = [
  ["a coding session (the bench conversation's first 400 messages: prompts, tool calls, source-code outputs)", conversation.messages.slice(0, 400)],
  ["English prose (docs/*.md, one user message each)", readdirSync(new URL("../docs/", import.meta.url)).filter((f) => f.endsWith(".md")).sort().map((f) => ({ role: "user", content: [{ type: "text", text: readFileSync(new URL(`../docs/${f}`, import.meta.url), "utf8") }] }))],
  ["TypeScript source (src/**/*.ts as tool outputs)", sourceFiles().map((text, i) => ({ role: "user", content: [toolResult(`t${i}`, text)] }))],
];
function sourceFiles() {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = new URL(entry.name + (entry.isDirectory() ? "/" : ""), dir);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) out.push(readFileSync(path, "utf8"));
    }
  };
  walk(new URL("../src/", import.meta.url));
  return out;
}
console.log("## Compaction: token estimate accuracy on whole conversations (estimate ÷ o200k_base count)\n");
console.log("| content | messages | o200k_base tokens | awl's estimate | ratio |\n| --- | --- | --- | --- | --- |");
for (const [what, messages] of samples) {
  const counted = o200kTokens(messages);
  const estimated = estimateMessages(messages);
  console.log(`| ${what} | ${messages.length} | ${counted} | ${estimated} | ${(estimated / counted).toFixed(2)} |`);
}
encoder.free();
console.log("");
