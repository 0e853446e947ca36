import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/model/index.js";
import { exportSession, forkSession, leavesOf } from "../../src/session/index.js";
import { mustLoad, NEW, tempStore } from "./fixtures.js";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const said = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } });
const texts = (messages: readonly Message[]): string[] => messages.map((m) => (m.content[0] as { text: string }).text);

/** A new session's writer. */
function newWriter(store: ReturnType<typeof tempStore>) {
  const created = store.create(NEW);
  if (!created.ok) throw new Error(created.error.message);
  return created.value;
}

describe("sessions as a tree", () => {
  it("a version 1 file (no ids, no parents) loads as it always did, and resuming it appends to its one branch", () => {
    const store = tempStore();
    const created = newWriter(store);
    const id = created.id;
    created.close();
    // The file as awl wrote it before sessions were trees.
    const header = JSON.parse(readFileSync(store.path(id), "utf8").split("\n")[0]!);
    const lines = [
      { ...header, version: 1 },
      { type: "message", time: "2025-01-01T00:00:00.000Z", message: { role: "user", content: [{ type: "text", text: "one" }] } },
      { type: "message", time: "2025-01-01T00:00:01.000Z", message: { role: "assistant", content: [{ type: "text", text: "two" }], stop_reason: "end_turn", stop_reason_raw: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } } },
      { type: "compaction", time: "2025-01-01T00:00:02.000Z", summary: "S", replaces: 2 },
      { type: "message", time: "2025-01-01T00:00:03.000Z", message: { role: "user", content: [{ type: "text", text: "three" }] } },
    ];
    writeFileSync(store.path(id), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const old = mustLoad(store, id);
    expect(old.warnings).toEqual([]);
    expect(texts(old.transcript)).toEqual(["one", "two", "three"]);
    expect(old.conversation.messages).toHaveLength(2); // the summary, then "three"
    expect(old.conversation.messages[1]).toEqual(user("three"));
    const opened = store.open(id);
    if (!opened.ok) throw new Error(opened.error.message);
    opened.value.writer.appendMessage(said("four"));
    opened.value.writer.close();
    const resumed = mustLoad(store, id);
    expect(texts(resumed.transcript)).toEqual(["one", "two", "three", "four"]);
    expect(resumed.conversation.messages).toHaveLength(3);
  });

  it("a rewind starts a branch: the old one stays, the new one is in use, and resuming continues it", () => {
    const store = tempStore();
    const w = newWriter(store);
    const first = user("first");
    for (const m of [first, said("answer 1"), user("second"), said("answer 2")]) w.appendMessage(m);
    const firstId = w.idOf(first)!;
    w.appendBranch(firstId, "rewind"); // the first answer is asked for again
    w.close();
    const loaded = mustLoad(store, w.id);
    expect(texts(loaded.transcript)).toEqual(["first"]);
    const opened = store.open(w.id);
    if (!opened.ok) throw new Error(opened.error.message);
    opened.value.writer.appendMessage(said("another answer"));
    opened.value.writer.close();
    const again = mustLoad(store, w.id);
    expect(texts(again.transcript)).toEqual(["first", "another answer"]);
    expect(leavesOf(again.tree).map((n) => texts([n.message])[0])).toEqual(["answer 2", "another answer"]);
    const all = JSON.parse(exportSession(again, "json", { allBranches: true }));
    expect(all.tree).toHaveLength(5);
    expect(all.leaf).toBe(again.leaf);
    expect(exportSession(again, "md", { allBranches: true })).toContain("answer 2");
    expect(exportSession(again, "md")).not.toContain("answer 2");
  });

  it("a parent link to a message that is not in the file is reported, and the message kept on the longest branch", () => {
    const store = tempStore();
    const w = newWriter(store);
    for (const m of [user("a"), said("b"), user("c")]) w.appendMessage(m);
    w.close();
    const text = readFileSync(store.path(w.id), "utf8").split("\n");
    const third = JSON.parse(text[3]!);
    text[3] = JSON.stringify({ ...third, parent: "nowhere" });
    writeFileSync(store.path(w.id), text.join("\n"));
    const loaded = mustLoad(store, w.id);
    expect(texts(loaded.transcript)).toEqual(["a", "b", "c"]);
    expect(loaded.warnings.map((x) => x.message).join()).toContain(`:4: the parent message "nowhere" is not in the file`);
  });

  it("a fork is a new session holding the branch in use", () => {
    const store = tempStore();
    const w = newWriter(store);
    const first = user("first");
    for (const m of [first, said("old answer")]) w.appendMessage(m);
    w.appendBranch(w.idOf(first)!, "rewind");
    w.appendMessage(said("new answer"));
    w.close();
    const forked = forkSession(store, w.id);
    if (!forked.ok) throw new Error(forked.error.message);
    expect(forked.value).not.toBe(w.id);
    const copy = mustLoad(store, forked.value);
    expect(texts(copy.transcript)).toEqual(["first", "new answer"]);
    expect(copy.tree.size).toBe(2);
  });
});
