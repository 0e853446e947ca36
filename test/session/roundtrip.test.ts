import { applyCompaction, summaryMessageText } from "../../src/model/compaction.js";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/model/index.js";
import { SESSION_FORMAT_VERSION } from "../../src/session/index.js";
import { everyBlock, NEW, tempStore } from "./fixtures.js";

function saveAndLoad(messages: Message[]) {
  const store = tempStore();
  const writer = store.create(NEW);
  if (!writer.ok) throw new Error(writer.error.message);
  for (const m of messages) expect(writer.value.appendMessage(m)).toEqual({ ok: true, value: undefined });
  expect(writer.value.close().ok).toBe(true);
  const loaded = store.load(writer.value.id);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return { store, id: writer.value.id, path: writer.value.path, loaded: loaded.value };
}

describe("session round trip", () => {
  it("gives back every block type and field exactly", () => {
    const messages = everyBlock();
    const { loaded } = saveAndLoad(messages);
    expect(loaded.conversation.messages).toEqual(messages);
    expect(loaded.transcript).toEqual(messages);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.unanswered).toEqual([]);
    expect(loaded.usage).toEqual({ input_tokens: 320, output_tokens: 50, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 });
  });

  it("keeps the header", () => {
    const { loaded, id, path } = saveAndLoad([]);
    expect(loaded.header).toMatchObject({ type: "session", version: SESSION_FORMAT_VERSION, id, ...NEW });
    expect(loaded.header.awl_version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Date.parse(loaded.header.created)).not.toBeNaN();
    expect(path.endsWith(`${id}.jsonl`)).toBe(true);
  });

  it("keeps tool inputs byte for byte, whitespace and empty input included", () => {
    const inputs = ['{ "path" : "." }', "", "  ", '{"a":"\\u00e9"}', "[1, 2]", "not json {"];
    const message: Message = {
      role: "assistant",
      content: inputs.map((input, i) => ({ type: "tool_use" as const, id: `t${i}`, name: "x", input })),
    };
    const { loaded, path } = saveAndLoad([message]);
    expect(loaded.conversation.messages[0]).toEqual(message);
    // The message itself is in the documented JSON form: parsed inputs are JSON values.
    const line = JSON.parse(readFileSync(path, "utf8").split("\n")[1]!);
    expect(line.message.content[0].input).toEqual({ path: "." });
    expect(line.message.content[5].input).toBe("not json {");
  });

  it("round-trips U+2028, U+2029, NUL, lone surrogates and astral characters, and escapes the line separators", () => {
    const tricky = "a\u2028b\u2029c\u0000d\ud800e\udfff f😀 g\r\nh\u001b[0m";
    const message: Message = { role: "user", content: [{ type: "text", text: tricky }] };
    const call: Message = { role: "assistant", content: [{ type: "tool_use", id: tricky, name: "t", input: "{}" }] };
    const { loaded, path } = saveAndLoad([message, call, { role: "user", content: [{ type: "tool_result", tool_use_id: tricky, content: tricky }] }]);
    expect(loaded.conversation.messages[0]!.content[0]).toEqual({ type: "text", text: tricky });
    expect(loaded.conversation.messages[1]!.content[0]).toMatchObject({ id: tricky });
    expect(loaded.conversation.messages[2]!.content[0]).toMatchObject({ tool_use_id: tricky, content: tricky });
    const bytes = readFileSync(path);
    const text = bytes.toString("utf8");
    expect(text).not.toMatch(/[\u2028\u2029\u0000]/);
    expect(text).toContain("\\u2028");
    expect(text).toContain("\\ud800"); // lone surrogates are escaped, so the file is valid UTF-8
    expect(Buffer.from(text, "utf8").equals(bytes)).toBe(true);
    expect(text.split("\n")).toHaveLength(5); // header, three messages, final newline
  });

  it("keeps tool snapshots, details and summaries, later fields winning", () => {
    const store = tempStore();
    const writer = store.create(NEW);
    if (!writer.ok) throw new Error(writer.error.message);
    writer.value.appendToolEvent("toolu_1", { snapshot: { lines: ["a", "b"], done: 0.5 } });
    writer.value.appendToolEvent("toolu_1", { snapshot: { lines: ["a", "b", "c"], done: 1 }, details: { exit: 0 }, summary: "3 lines" });
    writer.value.appendToolEvent("toolu_2", { details: [1, null, { x: "" }] });
    writer.value.close();
    const loaded = store.load(writer.value.id);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(Object.fromEntries(loaded.value.snapshots)).toEqual({
      toolu_1: { snapshot: { lines: ["a", "b", "c"], done: 1 }, details: { exit: 0 }, summary: "3 lines" },
      toolu_2: { details: [1, null, { x: "" }] },
    });
  });

  it("applies a prune-only compaction: the named results become a note, their blocks stay", () => {
    const store = tempStore();
    const writer = store.create(NEW);
    if (!writer.ok) throw new Error(writer.error.message);
    const [, user, assistant, results, done] = everyBlock();
    for (const m of [user!, assistant!, results!, done!]) writer.value.appendMessage(m);
    const ids = results!.content.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : []));
    writer.value.appendEvent({ type: "compaction", replaces: 0, pruned: [ids[0]!], reason: "threshold", tokens_before: 900, tokens_after: 300 });
    writer.value.close();
    const loaded = store.load(writer.value.id);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.warnings).toEqual([]);
    expect(loaded.value.conversation.messages).toEqual(applyCompaction([user!, assistant!, results!, done!], { replaces: 0, pruned: [ids[0]!] }));
    const pruned = loaded.value.conversation.messages[2]!.content.find((b) => b.type === "tool_result" && b.tool_use_id === ids[0]);
    expect(pruned).toMatchObject({ type: "tool_result", content: expect.stringMatching(/^\[awl: this tool output \(\d+ characters\) was pruned/) });
    expect(loaded.value.transcript[2]).toEqual(results);
  });

  it("applies model changes, usage entries and compactions", () => {
    const store = tempStore();
    const writer = store.create(NEW);
    if (!writer.ok) throw new Error(writer.error.message);
    const [system, user, assistant, results, done] = everyBlock();
    for (const m of [user!, assistant!, results!, done!]) writer.value.appendMessage(m);
    writer.value.appendEvent({ type: "model", provider: "openai", model: "gpt-x" });
    writer.value.appendEvent({ type: "usage", usage: { input_tokens: 1000, output_tokens: 100 }, reason: "compaction" });
    writer.value.appendEvent({ type: "compaction", summary: "Earlier: listed files.", replaces: 4 });
    writer.value.appendMessage(system!);
    writer.value.close();
    const loaded = store.load(writer.value.id);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const s = loaded.value;
    expect([s.provider, s.model]).toEqual(["openai", "gpt-x"]);
    expect(s.usage.input_tokens).toBe(320 + 1000);
    expect(s.conversation.messages).toEqual([{ role: "user", content: [{ type: "text", text: summaryMessageText("Earlier: listed files.") }] }, system]);
    expect(s.transcript).toHaveLength(5);
    expect(s.warnings).toEqual([]);
  });
});
