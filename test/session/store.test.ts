import { readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/model/index.js";
import { defaultSessionDir, SessionStore } from "../../src/session/index.js";
import { everyBlock, NEW, tempStore } from "./fixtures.js";

const say = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

function create(store: SessionStore, cwd: string, messages: Message[]) {
  const w = store.create({ ...NEW, cwd });
  if (!w.ok) throw new Error(w.error.message);
  for (const m of messages) w.value.appendMessage(m);
  w.value.close();
  return w.value.id;
}

describe("session ids and folders", () => {
  it("sort by creation time, are unique, and name the file", () => {
    const store = tempStore();
    const ids = Array.from({ length: 20 }, () => create(store, "/p", []));
    expect(new Set(ids).size).toBe(20);
    expect([...ids].sort()).toEqual(ids.slice().sort());
    expect(ids[0]! <= ids[19]!).toBe(true);
    for (const id of ids) expect(id).toMatch(/^\d{8}-\d{6}-\d{3}-[0-9a-f]{6}$/);
    expect(readdirSync(store.dir).sort()).toEqual(ids.map((id) => `${id}.jsonl`).sort());
  });

  it("live in $XDG_DATA_HOME/awl/sessions, else ~/.local/share/awl/sessions", () => {
    expect(defaultSessionDir({ XDG_DATA_HOME: "/x/data", HOME: "/home/u" })).toBe("/x/data/awl/sessions");
    expect(defaultSessionDir({ HOME: "/home/u" })).toBe("/home/u/.local/share/awl/sessions");
    expect(defaultSessionDir({ XDG_DATA_HOME: "relative", HOME: "/home/u" })).toBe("/home/u/.local/share/awl/sessions");
  });

  it("are private to the user", () => {
    const store = tempStore();
    const id = create(store, "/p", [say("hi")]);
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
    expect(statSync(store.path(id)).mode & 0o777).toBe(0o600);
  });
});

describe("resolve", () => {
  it("takes a full id, a unique prefix of the id, or of its random part", () => {
    const store = tempStore();
    const a = create(store, "/p", []);
    const b = create(store, "/p", []);
    expect(store.resolve(a)).toEqual({ ok: true, value: a });
    expect(store.resolve(b.slice(-6, -2))).toEqual({ ok: true, value: b });
    const common = a.slice(0, 8);
    const ambiguous = store.resolve(common);
    expect(ambiguous.ok).toBe(false);
    if (!ambiguous.ok) {
      expect(ambiguous.error.kind).toBe("ambiguous");
      expect(ambiguous.error.message).toContain(a);
      expect(ambiguous.error.message).toContain(b);
    }
    const none = store.resolve("zzz");
    expect(none.ok || none.error.kind).toBe("not_found");
    if (!none.ok) expect(none.error.message).toContain("awl sessions");
    expect(store.resolve("").ok).toBe(false);
    expect(store.resolve("../../etc/passwd").ok).toBe(false);
  });

  it("load and open accept a prefix", () => {
    const store = tempStore();
    const id = create(store, "/p", [say("hi")]);
    const loaded = store.load(id.slice(-6));
    expect(loaded.ok && loaded.value.header.id).toBe(id);
  });
});

describe("list and latest", () => {
  it("lists id, times, directory, first prompt, message count and tokens, most recently updated first", () => {
    const store = tempStore();
    const first = create(store, "/work/a", everyBlock());
    const second = create(store, "/work/b", [say("second prompt")]);
    utimesSync(store.path(first), new Date(), new Date(Date.now() + 60_000));
    const listed = store.list();
    if (!listed.ok) throw new Error(listed.error.message);
    expect(listed.value.warnings).toEqual([]);
    const [a, b] = listed.value.sessions;
    expect(a).toMatchObject({
      id: first,
      cwd: "/work/a",
      provider: NEW.provider,
      model: NEW.model,
      first_prompt: "List files, then fail once.",
      messages: 5,
      tokens: { input_tokens: 320, output_tokens: 50, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 },
    });
    expect(b).toMatchObject({ id: second, first_prompt: "second prompt", messages: 1, tokens: { input_tokens: 0, output_tokens: 0 } });
    expect(Date.parse(a!.updated)).toBeGreaterThan(Date.parse(b!.updated));
    expect(Date.parse(a!.created)).not.toBeNaN();
    const onlyB = store.list({ cwd: "/work/b/" });
    expect(onlyB.ok && onlyB.value.sessions.map((s) => s.id)).toEqual([second]);
  });

  it("counts the same as a full load, whatever the lines hold", () => {
    const store = tempStore({ sideFileThreshold: 100 });
    const big = "x".repeat(500);
    const id = create(store, "/p", [
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: big }] },
      ...everyBlock(),
    ]);
    const listed = store.list();
    const loaded = store.load(id);
    if (!listed.ok || !loaded.ok) throw new Error("load failed");
    expect(listed.value.sessions[0]!.messages).toBe(loaded.value.transcript.length);
    expect(listed.value.sessions[0]!.tokens).toEqual(loaded.value.usage);
    expect(listed.value.sessions[0]!.first_prompt).toBe("List files, then fail once.");
  });

  it("reports files it cannot read as warnings and lists the rest", () => {
    const store = tempStore();
    const good = create(store, "/p", [say("ok")]);
    const bad = create(store, "/p", [say("bad")]);
    writeFileSync(store.path(bad), "garbage\n");
    writeFileSync(join(store.dir, "notes.txt"), "not a session");
    const listed = store.list();
    if (!listed.ok) throw new Error(listed.error.message);
    expect(listed.value.sessions.map((s) => s.id)).toEqual([good]);
    expect(listed.value.warnings).toMatchObject([{ kind: "unreadable", path: store.path(bad) }]);
  });

  it("is empty when the folder does not exist yet", () => {
    const store = tempStore();
    expect(store.list()).toEqual({ ok: true, value: { sessions: [], warnings: [] } });
    expect(store.latest("/p").ok).toBe(false);
  });

  it("latest is the most recently updated session of that directory", () => {
    const store = tempStore();
    const older = create(store, "/work/a", [say("1")]);
    create(store, "/work/a", [say("2")]);
    create(store, "/work/b", [say("3")]);
    utimesSync(store.path(older), new Date(), new Date(Date.now() + 60_000));
    expect(store.latest("/work/a")).toEqual({ ok: true, value: older });
    const none = store.latest("/elsewhere");
    expect(none.ok || none.error.kind).toBe("not_found");
  });
});

describe("side files", () => {
  it("hold outputs larger than the threshold, beside the session; the line refers to them", () => {
    const store = tempStore({ sideFileThreshold: 1000 });
    const big = "line of output\n".repeat(1000);
    const image = "A".repeat(5000);
    const messages: Message[] = [
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "cat", input: "{}" }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: big, images: [{ media_type: "image/png", data: image }, { media_type: "image/gif", data: "R0lG" }] }] },
    ];
    const id = create(store, "/p", messages);
    const file = readFileSync(store.path(id), "utf8");
    expect(file.length).toBeLessThan(2000);
    expect(file).toMatch(/"content_file":"[0-9a-f]{64}\.txt","content_bytes":15000/);
    expect(readdirSync(join(store.dir, `${id}.files`)).sort()).toHaveLength(2);
    const loaded = store.load(id);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.conversation.messages).toEqual(messages);
    expect(loaded.value.warnings).toEqual([]);
  });

  it("a missing side file gives a warning naming it and a placeholder saying which file is missing", () => {
    const store = tempStore({ sideFileThreshold: 10 });
    const call: Message = { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "t", input: "{}" }] };
    const id = create(store, "/p", [call, { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "a long enough output" }] }, say("after")]);
    const side = join(store.dir, `${id}.files`);
    const [name] = readdirSync(side);
    rmSync(join(side, name!));
    const loaded = store.load(id);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.warnings).toMatchObject([{ kind: "missing_side_file", line: 3, path: join(side, name!) }]);
    const result = loaded.value.conversation.messages[1]!.content[0]!;
    expect(result.type === "tool_result" && result.content).toContain(join(side, name!));
    expect(result.type === "tool_result" && result.content).toContain("missing");
    expect(loaded.value.conversation.messages[2]).toEqual(say("after"));
  });

  it("a prompt's large image goes to a side file; if that file is gone, the prompt says so in its place", () => {
    const store = tempStore({ sideFileThreshold: 100 });
    const image = "A".repeat(5000);
    const prompt: Message = { role: "user", content: [{ type: "text", text: "look" }, { type: "image", media_type: "image/png", data: image }] };
    const id = create(store, "/p", [prompt, say("after")]);
    expect(readFileSync(store.path(id), "utf8")).toMatch(/"type":"image","media_type":"image\/png","data_file":"[0-9a-f]{64}\.b64"/);
    const loaded = store.load(id);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.conversation.messages[0]).toEqual(prompt);
    const side = join(store.dir, `${id}.files`);
    const [name] = readdirSync(side);
    rmSync(join(side, name!));
    const again = store.load(id);
    if (!again.ok) throw new Error(again.error.message);
    expect(again.value.warnings).toMatchObject([{ kind: "missing_side_file", path: join(side, name!) }]);
    expect(again.value.conversation.messages[0]!.content).toEqual([
      { type: "text", text: "look" },
      { type: "text", text: `[awl: an image of this prompt was stored in ${join(side, name!)}, which is missing]` },
    ]);
  });

  it("large snapshots and details go to side files too", () => {
    const store = tempStore({ sideFileThreshold: 100 });
    const w = store.create(NEW);
    if (!w.ok) throw new Error(w.error.message);
    const snapshot = { lines: Array.from({ length: 50 }, (_, i) => `line ${i}`) };
    w.value.appendToolEvent("t1", { snapshot, details: { small: true }, summary: "50 lines" });
    w.value.close();
    expect(readFileSync(w.value.path, "utf8")).toMatch(/"snapshot_file":"[0-9a-f]{64}\.json"/);
    const loaded = store.load(w.value.id);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.snapshots.get("t1")).toEqual({ snapshot, details: { small: true }, summary: "50 lines" });
  });

  it("a side-file name that awl would not write is refused, never read", () => {
    const store = tempStore();
    const id = create(store, "/p", []);
    writeFileSync(
      store.path(id),
      readFileSync(store.path(id), "utf8") +
        JSON.stringify({ type: "message", time: "t", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "x", content_file: "../../../etc/passwd" }] } }) +
        "\n",
    );
    const loaded = store.load(id);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const block = loaded.value.conversation.messages[0]!.content[0]!;
    expect(block.type === "tool_result" && block.content).not.toContain("root:");
    expect(loaded.value.warnings[0]!.message).toContain("not a side-file name");
  });
});
