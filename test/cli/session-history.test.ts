/**
 * A resumed session is redrawn from what was saved: text, thinking, and each tool block from its snapshot,
 * through the tool's `render(state, view)` in a real Lua worker, without running the tool.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LineSink } from "../../src/ui/output/sink.js";
import { showHistory } from "../../src/cli/session-history.js";
import { LuaToolSet } from "../../src/extensions/lua-tool-set.js";
import type { Message } from "../../src/model/message.js";
import { NEW, tempStore } from "../session/fixtures.js";
import { tempDir } from "../support/temp-dir.js";

/** `count` leaves a marker file when it runs; its render draws the saved state. `broken` has a render that crashes. */
const COUNT = (marker: string) => `
awl.register_tool {
  name = "count", description = "Counts.",
  parameters = { type = "object", properties = { n = { type = "integer" } } },
  run = function(args, ctx)
    local f = io.open(${JSON.stringify(marker)}, "w"); f:write("ran"); f:close()
    ctx:show { counted = args.n }
    return "counted to " .. args.n
  end,
  render = function(state, view) return { "COUNT-RENDER " .. state.counted, "width " .. view.width } end,
}
awl.register_tool {
  name = "broken", description = "Its render crashes.",
  parameters = { type = "object", properties = {} },
  run = function() return "ok" end,
  render = function(state) return state.missing.field end,
}
awl.register_tool {
  name = "plain", description = "No render.",
  parameters = { type = "object", properties = {} },
  run = function() return "ok" end,
}
`;

let tools: LuaToolSet;
let marker: string;
beforeAll(async () => {
  // Short names: the note of a crashed render (file:line, then the error) is one line cut at the width.
  const base = tempDir("awl-");
  marker = join(base, "count-ran");
  const extensions = join(base, "ext");
  mkdirSync(extensions);
  writeFileSync(join(extensions, "counter.lua"), COUNT(marker));
  tools = await LuaToolSet.open({ cwd: base, env: { HOME: base }, extensionDirs: [extensions], bundledDir: join(base, "none"), cachePath: false });
});
afterAll(() => tools.close());

/** Saves `messages` (with the tool events) and draws the session as `/resume` does. */
async function resumed(messages: Message[], events: Record<string, { snapshot?: unknown; title?: string; summary?: string }>, withTools = true): Promise<{ id: string; out: string }> {
  const store = tempStore();
  const w = store.create(NEW);
  if (!w.ok) throw new Error(w.error.message);
  for (const message of messages) {
    if (message.role === "user") for (const [id, event] of Object.entries(events)) w.value.appendToolEvent(id, event);
    w.value.appendMessage(message);
  }
  w.value.close();
  const loaded = store.load(w.value.id);
  if (!loaded.ok) throw new Error(loaded.error.message);
  let out = "";
  await showHistory(loaded.value, new LineSink({ write: (t: string) => (out += t) }, false), withTools ? tools : undefined);
  // Answers are drawn as Markdown, as live (its live region's erase-and-redraw sequences are not text).
  return { id: w.value.id, out: out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "") };
}

const countTurn: Message[] = [
  { role: "user", content: [{ type: "text", text: "count to 3" }] },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "Use the tool." },
      { type: "text", text: "Counting." },
      { type: "tool_use", id: "c1", name: "count", input: '{"n":3}' },
      { type: "tool_use", id: "c2", name: "count", input: '{"n":-1}' },
    ],
  },
  {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "c1", content: "counted to 3" },
      { type: "tool_result", tool_use_id: "c2", content: "n must be positive", is_error: true },
    ],
  },
  { role: "assistant", content: [{ type: "text", text: "Done." }] },
];

describe("showHistory", () => {
  it("draws each tool block from its saved snapshot with the tool's render, without running the tool", async () => {
    const { id, out } = await resumed(countTurn, { c1: { snapshot: { counted: 3 }, summary: "counted 3" } });
    expect(out).toBe(
      [
        `resumed session ${id} (${NEW.cwd}, 4 messages)`,
        "> count to 3",
        "(thinking) Use the tool.",
        "Counting.",
        '✓ count {"n":3}',
        "  COUNT-RENDER 3",
        "  width 97",
        '✗ count {"n":-1}',
        "  n must be positive",
        "Done.",
        "─── continue below ───",
        "",
      ].join("\n"),
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("heads each tool block with its saved ctx:title text, as seen live, instead of the raw input", async () => {
    const { out } = await resumed(countTurn, { c1: { snapshot: { counted: 3 }, title: "counting to three" }, c2: { title: "refused" } });
    expect(out).toContain("✓ count counting to three\n  COUNT-RENDER 3\n");
    expect(out).toContain("✗ count refused\n  n must be positive\n");
    expect(out).not.toContain('{"n":');
  });

  it("falls back to the saved summary when the tool no longer exists, has no render, or there is no tool host", async () => {
    const turn: Message[] = [
      { role: "assistant", content: [
        { type: "tool_use", id: "g", name: "gone", input: "{}" },
        { type: "tool_use", id: "p", name: "plain", input: "{}" },
      ] },
      { role: "user", content: [
        { type: "tool_result", tool_use_id: "g", content: "model-facing text of gone" },
        { type: "tool_result", tool_use_id: "p", content: "plain result" },
      ] },
    ];
    const events = { g: { snapshot: { x: 1 }, summary: "gone summary" }, p: { snapshot: { y: 2 } } };
    const { out } = await resumed(turn, events);
    expect(out).toContain("✓ gone {}\n  gone summary\n✓ plain {}\n  plain result\n");
    const without = await resumed(countTurn, { c1: { snapshot: { counted: 3 }, summary: "counted 3" } }, false);
    expect(without.out).toContain('✓ count {"n":3}\n  counted 3\n');
    expect(without.out).not.toContain("COUNT-RENDER");
  });

  it("shows a one-line note and the fallback when the render crashes", async () => {
    const turn: Message[] = [
      { role: "assistant", content: [{ type: "tool_use", id: "b", name: "broken", input: "{}" }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "b", content: "ok" }] },
    ];
    const { out } = await resumed(turn, { b: { snapshot: {}, summary: "broken summary" } });
    expect(out).toMatch(/✓ broken \{\}\n {2}render failed, plain text shown: \S*counter\.lua:16: attempt to.*\n {2}broken summary\n/);
  });
});
