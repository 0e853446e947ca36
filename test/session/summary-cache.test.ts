/**
 * `awl sessions` keeps each session's figures in `summaries.cache.json`, valid only for the exact file they were
 * read from: an unchanged file is not read again; a changed file, or a damaged or foreign cache, never shows wrong
 * figures. And the one pass over a file counts what a full load counts.
 */
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Message } from "../../src/model/index.js";
import type { SessionStore } from "../../src/session/index.js";
import { everyBlock, NEW, tempStore } from "./fixtures.js";

const say = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const answer = (text: string, input_tokens: number): Message => ({
  role: "assistant",
  content: [{ type: "text", text }],
  stop_reason: "end_turn",
  usage: { input_tokens, output_tokens: 1 },
});

function create(store: SessionStore, messages: Message[]): string {
  const w = store.create(NEW);
  if (!w.ok) throw new Error(w.error.message);
  for (const m of messages) w.value.appendMessage(m);
  w.value.close();
  return w.value.id;
}

/** The listing, by id. */
function listed(store: SessionStore): Record<string, { messages: number; first_prompt: string; tokens: unknown }> {
  const result = store.list();
  if (!result.ok) throw new Error(result.error.message);
  return Object.fromEntries(result.value.sessions.map((s) => [s.id, s]));
}

const cacheFile = (store: SessionStore) => join(store.dir, "summaries.cache.json");
type Cache = { version: number; sessions: Record<string, { key: string; summary: Record<string, unknown> }> };
const readCache = (store: SessionStore) => JSON.parse(readFileSync(cacheFile(store), "utf8")) as Cache;

/** Files changed in the last 2 s are not cached (they may change again within one clock tick): pretend it is later. */
function later(): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + 10_000);
}
afterEach(() => {
  vi.useRealTimers();
});

describe("the listing's summary cache", () => {
  it("takes an unchanged session's figures from the cache, and reads a changed one again", () => {
    const store = tempStore();
    const a = create(store, [say("first"), answer("one", 10)]);
    const b = create(store, [say("second")]);
    later();
    expect(listed(store)[a]).toMatchObject({ messages: 2, first_prompt: "first" });
    expect(Object.keys(readCache(store).sessions).sort()).toEqual([a, b].sort());

    // The cache is what a warm listing shows: a figure changed in it (the key kept) comes out as is.
    const cache = readCache(store);
    cache.sessions[a]!.summary.messages = 999;
    writeFileSync(cacheFile(store), JSON.stringify(cache));
    expect(listed(store)[a]!.messages).toBe(999);

    // Any change to the file makes its entry stale: the file is read again, and the entry replaced.
    const opened = store.open(a);
    if (!opened.ok) throw new Error(opened.error.message);
    opened.value.writer.appendMessage(answer("two", 5));
    opened.value.writer.close();
    later();
    expect(listed(store)[a]).toMatchObject({ messages: 3, tokens: { input_tokens: 15, output_tokens: 2 } });
    expect(readCache(store).sessions[a]!.summary.messages).toBe(3);

    // A deleted session leaves the cache.
    rmSync(store.path(b));
    expect(Object.keys(listed(store))).toEqual([a]);
    expect(Object.keys(readCache(store).sessions)).toEqual([a]);
  });

  it("a cold and a warm listing give the same summaries, field order included", () => {
    const store = tempStore();
    create(store, everyBlock());
    create(store, [say("x")]);
    later();
    const cold = store.list();
    expect(existsSync(cacheFile(store))).toBe(true);
    const warm = store.list();
    expect(JSON.stringify(warm)).toBe(JSON.stringify(cold));
  });

  it("never believes a damaged cache, one of another version, or an entry of the wrong shape", () => {
    const store = tempStore();
    const id = create(store, [say("first"), answer("one", 10)]);
    later();
    const truth = listed(store)[id];
    const good = readCache(store);
    const tampered = (change: (entry: { key: string; summary: Record<string, unknown> }) => void, version = good.version): string => {
      const copy = structuredClone(good);
      copy.version = version;
      change(copy.sessions[id]!);
      return JSON.stringify(copy);
    };
    const damaged = [
      "garbage",
      JSON.stringify(good).slice(0, 40),
      JSON.stringify({ version: good.version, sessions: [] }),
      tampered((e) => (e.summary.messages = 999), good.version + 1),
      tampered((e) => (e.summary.messages = "999")),
      tampered((e) => (e.summary.messages = -1)),
      tampered((e) => (e.summary.tokens = { input_tokens: "lots" })),
      tampered((e) => delete e.summary.first_prompt),
      tampered((e) => (e.summary = null as unknown as Record<string, unknown>)),
      tampered((e) => (e.key = `${e.key}0`)),
    ];
    for (const text of damaged) {
      writeFileSync(cacheFile(store), text);
      expect(listed(store)[id], text).toEqual(truth);
      expect(readCache(store), text).toEqual(good); // rebuilt
    }
  });

  it("reads again a file edited in place to the same size with its modification time set back", async () => {
    const store = tempStore();
    const id = create(store, [say("first prompt")]);
    const whole = Math.floor(Date.now() / 1000) - 100; // a whole second, so setting it back is exact to the nanosecond
    utimesSync(store.path(id), whole, whole);
    const before = statSync(store.path(id), { bigint: true });
    later();
    expect(listed(store)[id]!.first_prompt).toBe("first prompt");
    vi.useRealTimers();
    await new Promise((resolve) => setTimeout(resolve, 30)); // the edit comes a clock tick later, as any real edit does
    writeFileSync(store.path(id), readFileSync(store.path(id), "utf8").replace("first prompt", "FIRST PROMPT"));
    utimesSync(store.path(id), whole, whole);
    const after = statSync(store.path(id), { bigint: true });
    expect([after.size, after.mtimeNs, after.ino]).toEqual([before.size, before.mtimeNs, before.ino]);
    later();
    expect(listed(store)[id]!.first_prompt).toBe("FIRST PROMPT");
  });

  it("does not cache a file changed in the last 2 seconds (it may change again within the same clock tick)", () => {
    const store = tempStore();
    const fresh = create(store, [say("fresh")]);
    expect(listed(store)[fresh]!.first_prompt).toBe("fresh");
    expect(existsSync(cacheFile(store)) ? Object.keys(readCache(store).sessions) : []).toEqual([]);
  });
});

describe("the listing's pass over a file", () => {
  it("counts tokens only from assistant messages' own usage, whatever their content or tool inputs hold", () => {
    const store = tempStore();
    const w = store.create(NEW);
    if (!w.ok) throw new Error(w.error.message);
    const fakeUsage = { input_tokens: 5000, output_tokens: 5000 };
    const messages: Message[] = [
      say(`quoting ,"usage":${JSON.stringify(fakeUsage)}}}`),
      // A tool input holding a usage-shaped value, in a message with no usage of its own.
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "log", input: JSON.stringify({ n: 1, usage: fakeUsage }) }], stop_reason: "tool_use" },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
      // A raw input (extra spaces) puts `raw_inputs` after the message: its usage is still counted.
      { role: "assistant", content: [{ type: "tool_use", id: "t2", name: "log", input: '{ "usage" : 1 }' }], stop_reason: "tool_use", usage: { input_tokens: 7, output_tokens: 3 } },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t2", content: "ok" }] },
      { role: "assistant", content: [{ type: "text", text: JSON.stringify({ usage: fakeUsage }) }], usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 4 } },
    ];
    for (const m of messages) w.value.appendMessage(m);
    w.value.appendEvent({ type: "usage", usage: { input_tokens: 100, output_tokens: 10 }, reason: "retry" });
    w.value.close();
    const loaded = store.load(w.value.id);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(listed(store)[w.value.id]).toMatchObject({ messages: 6, tokens: loaded.value.usage });
    expect(loaded.value.usage).toEqual({ input_tokens: 108, output_tokens: 14, cache_read_input_tokens: 4 });
  });

  it("counts a last line cut short by a kill as a full load does: not at all", () => {
    const store = tempStore();
    const id = create(store, [say("first"), say("second")]);
    appendFileSync(store.path(id), '{"type":"message","time":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"te');
    const loaded = store.load(id);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.transcript).toHaveLength(2);
    expect(listed(store)[id]!.messages).toBe(2);
  });
});
