// Long sessions (issue 14, "Bench"): building the request for a 10 000-message conversation (~50 MB) together with
// the token estimate compaction checks before every call (target p50 ≤ 50 ms), beside JSON.stringify of the same
// messages measured in the same run (the floor any request builder pays); and the token estimate's accuracy on the
// recorded fixtures.
import { readFileSync, readdirSync } from "node:fs";
import { Conversation, toolResult } from "../dist/model/conversation.js";
import { Compactor } from "../dist/compaction/compactor.js";
import { estimateMessages } from "../dist/compaction/estimate.js";
import { buildChatRequestBody } from "../dist/providers/openai/request.js";
import { resolveCompat } from "../dist/providers/openai/compat.js";
import { buildMessagesRequest } from "../dist/providers/anthropic/request.js";
import { createSseDecoder } from "../dist/providers/sse.js";
import { ChatCompletionAssembler } from "../dist/providers/openai/assembler.js";
import { AnthropicAssembler } from "../dist/providers/anthropic/assembler.js";

const RUNS = 9;
const MESSAGES = 10_000;

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** A coding session: prompts, replies that call tools, tool outputs of a few KB (source files, command output). */
function bigConversation() {
  const c = new Conversation();
  c.addSystemMessage("You are a coding agent.");
  const line = "    const value = compute(input, options); // a line of source code, about sixty characters\n";
  for (let i = 0; c.messages.length < MESSAGES; i++) {
    if (i % 10 === 0) c.addUserMessage(`Step ${i}: please look at src/module${i}.ts and fix the failing test.`);
    const id = `toolu_${i}`;
    c.addAssistantMessage([{ type: "text", text: `Reading src/module${i}.ts.` }, { type: "tool_use", id, name: "read", input: JSON.stringify({ path: `src/module${i}.ts` }) }], { stop_reason: "tool_use", usage: { input_tokens: 1000 + i, output_tokens: 40 } });
    c.addToolResults([toolResult(id, line.repeat(100 + (i % 50)))]);
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

function time(fn) {
  const times = [];
  for (let r = 0; r <= RUNS; r++) {
    globalThis.gc?.();
    const start = performance.now();
    fn();
    if (r > 0) times.push(performance.now() - start);
  }
  return { p50: percentile(times, 50), p90: percentile(times, 90) };
}

const conversation = bigConversation();
const bytes = Buffer.byteLength(JSON.stringify(conversation.messages));
const compactor = new Compactor({ provider: () => ({ name: "openai" }), contextWindow: () => 200_000 });
const compat = resolveCompat("http://localhost:8080/v1");
const settings = { model: "m", maxTokens: undefined };

const floor = time(() => JSON.stringify(conversation.messages));
const estimate = time(() => compactor.estimate(conversation, tools));
const openai = time(() => {
  compactor.estimate(conversation, tools);
  buildChatRequestBody(conversation, tools, settings, compat);
});
const anthropic = time(() => {
  compactor.estimate(conversation, tools);
  buildMessagesRequest(conversation, { model: "claude-sonnet-4-5", baseUrl: "http://localhost", maxTokens: 8192 }, tools);
});
const ms = (t) => `p50 ${t.p50.toFixed(1)} ms, p90 ${t.p90.toFixed(1)} ms`;
console.log(`## Compaction: request building for ${conversation.messages.length} messages (${(bytes / 1e6).toFixed(1)} MB of conversation JSON), medians of ${RUNS}\n`);
console.log(`- baseline JSON.stringify(messages): ${ms(floor)}`);
console.log(`- token estimate alone (the check before every call): ${ms(estimate)}`);
console.log(`- estimate + OpenAI request body: ${ms(openai)} (target p50 ≤ 50 ms: ${openai.p50 <= 50 ? "met" : "NOT met"}; ${(openai.p50 / floor.p50).toFixed(2)}× the baseline)`);
console.log(`- estimate + Anthropic request: ${ms(anthropic)} (${(anthropic.p50 / floor.p50).toFixed(2)}× the baseline)\n`);

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
