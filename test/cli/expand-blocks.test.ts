/**
 * Expanding tool results (tmux): Ctrl-O prints the last tool block again below, whole; Alt-O all of the last
 * turn's; pressed during a turn, once the turn is over.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./run-awl.js";
import { openaiToolCalls } from "../e2e/support.js";
import { openaiAnswer } from "./openai-answer.js";
import { tmuxTest } from "./tmux-terminal.js";
import { WAIT_FOR_GATE } from "./lua-gate.js";

const tty = tmuxTest();

/** `long` returns 30 lines (shown collapsed to one); `gated` waits for a file, then does the same. */
const TOOLS = `
awl.register_tool {
  name = "long", description = "Returns 30 lines.",
  parameters = { type = "object", properties = {} },
  run = function(args, ctx)
    local out = {}
    for i = 1, 30 do out[#out + 1] = "result line " .. i end
    return table.concat(out, "\\n")
  end,
}
awl.register_tool {
  name = "gated", description = "Waits for the file gate, then returns 30 lines.",
  parameters = { type = "object", properties = { gate = { type = "string" } } },
  run = function(args, ctx)${WAIT_FOR_GATE}
    local out = {}
    for i = 1, 30 do out[#out + 1] = "gated line " .. i end
    return table.concat(out, "\\n")
  end,
  render = function(state, view)
    local out = {}
    for i = 1, state.n do out[#out + 1] = "row " .. i end
    return out
  end,
}
awl.register_tool {
  name = "drawn", description = "Shows a state of 25 rows, returns one line.",
  parameters = { type = "object", properties = {} },
  run = function(args, ctx)
    ctx:show({ n = 25 })
    return "plain result"
  end,
  render = function(state, view)
    local out = {}
    for i = 1, state.n do out[#out + 1] = "drawn row " .. i .. (view.expand and " (expanded)" or "") end
    return out
  end,
}`;

describe("expanding tool results", () => {
  it("Ctrl-O prints the last result whole below the output; Alt-O every result of the last turn", async () => {
    tty.server.enqueue(
      { body: openaiToolCalls([{ id: "c1", name: "long", input: { first: true } }, { id: "c2", name: "long", input: {} }]) },
      openaiAnswer("Both ran."),
    );
    await tty.start({ extensions: { "tools.lua": TOOLS }, args: ["--allow", "*"], rows: 100 });
    await tty.send("run them");
    const collapsed = await tty.terminal.waitFor(/Both ran\.\n>/);
    expect(collapsed).not.toContain("result line 30");

    await tty.terminal.keys("C-o");
    const last = await tty.terminal.waitFor(/\(the last tool result, expanded: printed again below\)\n✓ long[^\n]*\n(  result line \d+\n){30}>/);
    expect(last.match(/result line 30/g)).toHaveLength(1);

    await tty.terminal.keys("M-o");
    await tty.terminal.waitFor(/\(the last turn's 2 tool results, expanded: printed again below\)\n✓ long \{"first":true\}\n(  result line \d+\n){30}✓ long[^\n]*\n(  result line \d+\n){30}>/);
  }, 60_000);

  it("a block whose body is the tool's render: collapsed to the render's first lines once ended, Ctrl-O every line of it", async () => {
    tty.server.enqueue({ body: openaiToolCalls([{ id: "d1", name: "drawn", input: {} }]) }, openaiAnswer("Drew it."));
    await tty.start({ extensions: { "tools.lua": TOOLS }, args: ["--allow", "*"], rows: 60 });
    await tty.send("draw");
    const collapsed = await tty.terminal.waitFor(/Drew it\.\n>/);
    expect(collapsed).toMatch(/✓ drawn \{\}\n(  drawn row \d+\n){9}  … 16 more lines\nDrew it\./);
    expect(collapsed).not.toContain("plain result");
    await tty.terminal.keys("C-o");
    const expanded = await tty.terminal.waitFor(/\(the last tool result, expanded: printed again below\)\n✓ drawn \{\}\n(  drawn row \d+ \(expanded\)\n){25}>/);
    expect(expanded).not.toContain("plain result");
  }, 60_000);

  it("pressed during a turn, expands once the turn is over; with no result yet it says so", async () => {
    await tty.start({ extensions: { "tools.lua": TOOLS }, args: ["--allow", "*"], rows: 50 });
    await tty.terminal.keys("C-o");
    await tty.terminal.waitFor(/\(no tool result or thinking to expand yet\)\n>/);

    const gate = join(tempDir("awl-gate-"), "gate");
    tty.server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "gated", input: { gate } }]) }, openaiAnswer("Done."));
    await tty.send("run it");
    await tty.terminal.waitFor(/[⠀-⣿] gated/);
    await tty.terminal.keys("C-o");
    writeFileSync(gate, "");
    await tty.terminal.waitFor(/Done\.\n\(the last tool result, expanded: printed again below\)\n✓ gated[^\n]*\n(  gated line \d+\n){30}>/);
  }, 60_000);
});
