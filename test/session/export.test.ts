import { describe, expect, it } from "vitest";
import { conversationFromJSON } from "../../src/model/index.js";
import { exportSession, type LoadedSession } from "../../src/session/index.js";
import { everyBlock, NEW, tempStore } from "./fixtures.js";

function loadedEveryBlock(): LoadedSession {
  const store = tempStore();
  const w = store.create(NEW);
  if (!w.ok) throw new Error(w.error.message);
  for (const m of everyBlock()) w.value.appendMessage(m);
  w.value.appendToolEvent("toolu_1", { snapshot: { rows: 2 }, summary: "2 files" });
  w.value.close();
  const loaded = store.load(w.value.id);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.value;
}

describe("export", () => {
  it("json is the documented conversation form plus the header and tool snapshots", () => {
    const session = loadedEveryBlock();
    const json = JSON.parse(exportSession(session, "json"));
    expect(json.session).toEqual(session.header);
    // The conversation form writes an empty tool input as {} (SPEC §3 rule 3); everything else is exact.
    const expected = JSON.parse(JSON.stringify(everyBlock()).replace('"input":""', '"input":"{}"'));
    expect(conversationFromJSON(json).messages).toEqual(expected);
    expect(json.tools).toEqual({ toolu_1: { snapshot: { rows: 2 }, summary: "2 files" } });
  });

  it("markdown shows roles, text, marked thinking, tool calls with their input and results", () => {
    const md = exportSession(loadedEveryBlock(), "md");
    expect(md).toContain(`- Directory: ${NEW.cwd}`);
    for (const heading of ["## System", "## User", "## Assistant", "## Tool results"]) expect(md).toContain(heading);
    expect(md).toContain("> **Thinking**\n>\n> I should call ls.");
    expect(md).toContain("*(redacted thinking)*");
    expect(md).toContain('**Tool call** `ls` (id `toolu_1`):\n\n```json\n{\n  "path": ".",\n  "all": true\n}\n```');
    expect(md).toContain('```json\n{"path": "unterminated\n```'); // invalid input shown verbatim
    expect(md).toContain("**Tool error** for `toolu_2`:");
    expect(md).toContain("*[image: image/png, 9 bytes]*");
    expect(md).toContain("List files, then fail once.\n\n*[image: image/gif, 15 bytes]*");
    expect(md).toContain("*Tokens: in 120, out 45, cache read 100*");
  });

  it("markdown fences cannot be closed by the content", () => {
    const session = loadedEveryBlock();
    session.transcript = [{ role: "user", content: [{ type: "tool_result", tool_use_id: "x", content: "a\n```\nb ````" }] }];
    expect(exportSession(session, "md")).toContain("`````\na\n```\nb ````\n`````");
  });
});
