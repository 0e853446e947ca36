import { appendFileSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/model/index.js";
import { SessionStore, SESSION_ENDED_RESULT, type WriterIO } from "../../src/session/index.js";
import { SecretScrubber } from "../../src/util/secrets.js";
import { nodeIO } from "../../src/session/side-files.js";
import { SessionWriter } from "../../src/session/writer.js";
import { everyBlock, mustLoad, NEW, tempStore } from "./fixtures.js";

const say = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

function sessionWith(store: SessionStore, messages: Message[]) {
  const writer = store.create(NEW);
  if (!writer.ok) throw new Error(writer.error.message);
  for (const m of messages) writer.value.appendMessage(m);
  expect(writer.value.close().ok).toBe(true);
  return writer.value;
}

describe("a torn last line", () => {
  it("is reported and ignored on load, without touching the file", () => {
    const store = tempStore();
    const w = sessionWith(store, [say("one"), say("two")]);
    appendFileSync(w.path, '{"type":"message","time":"2025-01-01T00:00:00Z","message":{"role":"user","con');
    const before = readFileSync(w.path);
    const loaded = mustLoad(store, w.id);
    expect(loaded.conversation.messages).toEqual([say("one"), say("two")]);
    expect(loaded.warnings).toMatchObject([{ kind: "torn_tail", line: 4, path: w.path }]);
    expect(readFileSync(w.path).equals(before)).toBe(true);
  });

  it("is trimmed (and only it) before the next append, which then works", () => {
    const store = tempStore();
    const w = sessionWith(store, [say("one"), say("two")]);
    const goodSize = statSync(w.path).size;
    appendFileSync(w.path, Buffer.from('{"type":"message","tim\u0000\u0000', "utf8"));
    const opened = store.open(w.id);
    if (!opened.ok) throw new Error(opened.error.message);
    expect(statSync(w.path).size).toBe(goodSize);
    expect(opened.value.writer.appendMessage(say("three")).ok).toBe(true);
    opened.value.writer.close();
    const loaded = mustLoad(store, w.id);
    expect(loaded.conversation.messages).toEqual([say("one"), say("two"), say("three")]);
    expect(loaded.warnings).toEqual([]);
  });

  it("that is a complete entry missing only its newline is kept, and terminated before appending", () => {
    const store = tempStore();
    const w = sessionWith(store, [say("one"), say("two")]);
    truncateSync(w.path, statSync(w.path).size - 1);
    expect(mustLoad(store, w.id).conversation.messages).toHaveLength(2);
    const opened = store.open(w.id);
    if (!opened.ok) throw new Error(opened.error.message);
    opened.value.writer.appendMessage(say("three"));
    opened.value.writer.close();
    expect(mustLoad(store, w.id).conversation.messages).toEqual([say("one"), say("two"), say("three")]);
  });
});

describe("an invalid line in the middle (hand-edited)", () => {
  it("is reported with its line number and skipped; the rest loads; the file is not rewritten", () => {
    const store = tempStore();
    const w = sessionWith(store, [say("one"), say("two"), say("three")]);
    const lines = readFileSync(w.path, "utf8").split("\n");
    lines[2] = lines[2]!.replace('"two"', '"two", oops');
    lines.splice(3, 0, '{"type":"message","time":"x","message":{"role":"robot","content":[]}}', "", '{"type":"teleport"}');
    writeFileSync(w.path, lines.join("\n"));
    const before = readFileSync(w.path);
    const loaded = mustLoad(store, w.id);
    expect(loaded.conversation.messages).toEqual([say("one"), say("three")]);
    expect(loaded.warnings.map((x) => [x.kind, x.line])).toEqual([
      ["invalid_line", 3],
      ["invalid_line", 4],
      ["invalid_line", 6],
    ]);
    expect(loaded.warnings[0]!.message).toContain(`${w.path}:3: not valid JSON`);
    expect(loaded.warnings[1]!.message).toContain("message.role");
    expect(loaded.warnings[2]!.message).toContain('unknown entry type "teleport"');
    // Opening to continue appends after the damage and keeps it.
    const opened = store.open(w.id);
    if (!opened.ok) throw new Error(opened.error.message);
    opened.value.writer.appendMessage(say("four"));
    opened.value.writer.close();
    expect(readFileSync(w.path).subarray(0, before.length).equals(before)).toBe(true);
    expect(mustLoad(store, w.id).conversation.messages).toEqual([say("one"), say("three"), say("four")]);
  });

  it("a damaged header stops the load with a format error naming the file", () => {
    const store = tempStore();
    const w = sessionWith(store, [say("one")]);
    writeFileSync(w.path, readFileSync(w.path, "utf8").replace('"type":"session"', '"type":"sess'));
    const loaded = store.load(w.id);
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) expect(loaded.error).toMatchObject({ kind: "format", path: w.path });
  });
});

describe("the format version", () => {
  it("a header from a future version is refused, naming the file and both versions", () => {
    const store = tempStore();
    const w = sessionWith(store, [say("one")]);
    writeFileSync(w.path, readFileSync(w.path, "utf8").replace('"version":2', '"version":3'));
    const before = readFileSync(w.path);
    for (const result of [store.load(w.id), store.open(w.id)]) {
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error.kind).toBe("version");
      expect(result.error.message).toContain(w.path);
      expect(result.error.message).toMatch(/version 3.*version 2/);
    }
    expect(readFileSync(w.path).equals(before)).toBe(true);
  });
});

describe("secrets", () => {
  it("never reach the file, wherever they appear", () => {
    const key = "sk-ant-api03-SECRETSECRET-0123456789abcdef";
    const store = tempStore({ secrets: [key, undefined, "short"], sideFileThreshold: 1024 });
    const w = store.create({ ...NEW, cwd: `/tmp/${key}` });
    if (!w.ok) throw new Error(w.error.message);
    w.value.appendMessage(say(`my key is ${key}, Authorization: Bearer ${key}`));
    w.value.appendMessage({ role: "assistant", content: [{ type: "tool_use", id: "t1", name: "env", input: `{"x":"${key}"}` }] });
    w.value.appendMessage({ role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: `AWL_API_KEY=${key}\n`.repeat(200) }] });
    w.value.appendToolEvent("t1", { snapshot: { env: key }, details: { big: `${key} `.repeat(100) }, summary: key });
    w.value.close();
    const everything = [readFileSync(w.value.path, "latin1")];
    const side = `${store.dir}/${w.value.id}.files`;
    for (const name of readdirSync(side)) everything.push(readFileSync(`${side}/${name}`, "latin1"));
    expect(everything.length).toBeGreaterThan(2); // the large result and details went to side files
    for (const text of everything) {
      expect(text).not.toContain(key);
      expect(text).toContain("[REDACTED]");
    }
    expect(everything.join("")).not.toMatch(/x-api-key/i);
  });
});

describe("turn boundaries", () => {
  it("fsyncs the session file at every turn end, after the turn's lines are written", () => {
    const events: string[] = [];
    const io: WriterIO = {
      ...nodeIO,
      writeSync(fd, data) {
        events.push("write");
        return nodeIO.writeSync(fd, data);
      },
      fsyncSync(fd) {
        events.push("fsync");
        nodeIO.fsyncSync(fd);
      },
    };
    const w = tempStore({ io }).create(NEW);
    if (!w.ok) throw new Error(w.error.message);
    events.length = 0; // creating the file is not a turn
    w.value.appendMessage(say("one"));
    w.value.appendMessage(say("two"));
    expect(w.value.endTurn().ok).toBe(true);
    expect(events.at(-1)).toBe("fsync");
    expect(events.filter((e) => e === "fsync")).toHaveLength(1);
    w.value.appendMessage(say("three"));
    expect(w.value.endTurn().ok).toBe(true);
    expect(events.filter((e) => e === "fsync")).toHaveLength(2);
    expect(events.at(-1)).toBe("fsync");
    w.value.close();
  });
});

describe("a full disk", () => {
  /** Real file-system calls, except that writes fail with ENOSPC while `full` is set (after writing part of the data). */
  function fillableIO() {
    const state = { full: false };
    const io: WriterIO = {
      ...nodeIO,
      writeSync(fd, data) {
        if (!state.full) return nodeIO.writeSync(fd, data);
        if (data.length > 10) return nodeIO.writeSync(fd, data.subarray(0, 10)); // a short write first
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      },
    };
    return { state, io };
  }

  it("gives a clear error, loses nothing already written, and saves the queued messages once space is back", () => {
    const { state, io } = fillableIO();
    const store = tempStore({ io });
    const w = store.create(NEW);
    if (!w.ok) throw new Error(w.error.message);
    const writer = w.value;
    writer.appendMessage(say("one"));
    writer.endTurn();
    const saved = readFileSync(writer.path);
    state.full = true;
    const failed = writer.appendMessage(say("two"));
    expect(failed.ok).toBe(false);
    if (!failed.ok) {
      expect(failed.error).toMatchObject({ kind: "io", code: "ENOSPC", path: writer.path });
      expect(failed.error.message).toContain("disk is full");
    }
    expect(writer.appendMessage(say("three")).ok).toBe(false);
    expect(writer.unsaved).toBe(2);
    expect(readFileSync(writer.path).equals(saved)).toBe(true); // the partial line was cut back
    expect(mustLoad(store, writer.id).warnings).toEqual([]);
    state.full = false;
    expect(writer.endTurn().ok).toBe(true);
    expect(writer.unsaved).toBe(0);
    writer.close();
    expect(mustLoad(store, writer.id).conversation.messages).toEqual([say("one"), say("two"), say("three")]);
  });

  it("on /dev/full, the error names the file and the cause", () => {
    // /dev/full fails every write with ENOSPC, like a real full disk.
    const options = { scrub: new SecretScrubber(), sideFileThreshold: 1024, io: nodeIO };
    const w = SessionWriter.reopen("/dev/full", "/nonexistent", "x", { goodSize: 0, fileSize: 0, unterminated: false, leaf: null, ids: new Map() }, options, { release() {} });
    if (!w.ok) throw new Error(w.error.message);
    const r = w.value.appendMessage(say("hello"));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ kind: "io", code: "ENOSPC", path: "/dev/full" });
    expect(w.value.close().ok).toBe(false);
  });
});

describe("resuming a session that stopped mid-turn", () => {
  it("answers each unanswered tool call with a synthetic is_error result, in the conversation and the file", () => {
    const store = tempStore();
    const [, user, assistant] = everyBlock();
    const w = sessionWith(store, [user!, assistant!]);
    const loaded = mustLoad(store, w.id);
    expect(loaded.unanswered).toEqual(["toolu_1", "toolu_2", "toolu_3", "toolu_4"]);
    const opened = store.open(w.id);
    if (!opened.ok) throw new Error(opened.error.message);
    const { session, writer } = opened.value;
    const last = session.conversation.lastMessage!;
    expect(last.role).toBe("user");
    expect(last.content).toEqual(
      ["toolu_1", "toolu_2", "toolu_3", "toolu_4"].map((id) => ({ type: "tool_result", tool_use_id: id, content: SESSION_ENDED_RESULT, is_error: true })),
    );
    expect(session.conversation.unansweredToolUses()).toEqual([]);
    writer.close();
    const again = mustLoad(store, w.id);
    expect(again.conversation.messages).toEqual(session.conversation.messages);
    expect(again.unanswered).toEqual([]);
  });

  it("killed mid-batch: a result saved when its tool ended is used, only a call without one gets the synthetic result", () => {
    const store = tempStore();
    const created = store.create(NEW);
    if (!created.ok) throw new Error(created.error.message);
    const w = created.value;
    w.appendMessage(say("look"));
    w.appendMessage({
      role: "assistant",
      content: [
        { type: "tool_use", id: "call_a", name: "read", input: '{"path":"a"}' },
        { type: "tool_use", id: "call_b", name: "read", input: '{"path":"b"}' },
      ],
    });
    w.appendToolEvent("call_a", { summary: "1 line" }, { type: "tool_result", tool_use_id: "call_a", content: "contents of a" });
    w.close(); // killed before call_b ended and before the results message

    const loaded = mustLoad(store, w.id);
    expect(loaded.results.get("call_a")).toEqual({ type: "tool_result", tool_use_id: "call_a", content: "contents of a" });
    expect(loaded.snapshots.get("call_a")).toEqual({ summary: "1 line" });
    const opened = store.open(w.id);
    if (!opened.ok) throw new Error(opened.error.message);
    const expected = [
      { type: "tool_result", tool_use_id: "call_a", content: "contents of a" },
      { type: "tool_result", tool_use_id: "call_b", content: SESSION_ENDED_RESULT, is_error: true },
    ];
    expect(opened.value.session.conversation.lastMessage).toEqual({ role: "user", content: expected });
    opened.value.writer.close();
    const again = mustLoad(store, w.id);
    expect(again.conversation.lastMessage).toEqual({ role: "user", content: expected });
    expect(again.unanswered).toEqual([]);
  });

  it("a result lost in the middle of a damaged file is answered in memory only, with a warning", () => {
    const store = tempStore();
    const [, user, assistant, results, done] = everyBlock();
    const w = sessionWith(store, [user!, assistant!, results!, done!, say("next")]);
    const lines = readFileSync(w.path, "utf8").split("\n");
    lines.splice(3, 1); // the tool results line
    writeFileSync(w.path, lines.join("\n"));
    const before = readFileSync(w.path);
    const opened = store.open(w.id);
    if (!opened.ok) throw new Error(opened.error.message);
    const messages = opened.value.session.conversation.messages;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(messages[2]!.content.map((b) => b.type === "tool_result" && b.is_error)).toEqual([true, true, true, true]);
    expect(opened.value.session.warnings.map((x) => x.message).join()).toContain("earlier in the session");
    opened.value.writer.close();
    expect(readFileSync(w.path).equals(before)).toBe(true);
  });

  it("leaves a session that ended cleanly exactly as saved", () => {
    const store = tempStore();
    const w = sessionWith(store, everyBlock());
    const before = readFileSync(w.path);
    const opened = store.open(w.id);
    if (!opened.ok) throw new Error(opened.error.message);
    expect(opened.value.session.conversation.messages).toEqual(everyBlock());
    opened.value.writer.close();
    expect(readFileSync(w.path).equals(before)).toBe(true);
  });
});
