// Tool blocks through the built `awl -p` (text): each block printed once when its call ends, its body from the
// tool's render(state, view) of the last ctx:show state, its header with the ctx:title text.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, sandbox, type Sandbox } from "./support.js";

const WEATHER = `
awl.register_tool {
  name = "weather", description = "Looks up the weather.",
  parameters = { type = "object", properties = { city = { type = "string" } }, required = { "city" } },
  run = function(args, ctx)
    ctx:title(args.city)
    ctx:show { phase = "fetching", city = args.city }
    ctx:show { phase = "done", city = args.city, report = "sunny" }
    return "The weather in " .. args.city .. " is sunny"
  end,
  render = function(state, view)
    if state.phase == "fetching" then return "looking up " .. state.city end
    return { "WEATHER-RENDER " .. state.city .. ": " .. state.report, "view " .. view.width .. "x" .. view.height }
  end,
}
awl.register_tool {
  name = "shown", description = "Shows a state, has no render.",
  parameters = { type = "object", properties = {} },
  run = function(args, ctx) ctx:show { step = 2 } return { content = "shown result", summary = "shown summary" } end,
}
awl.register_tool {
  name = "badrender", description = "Its render loops forever.",
  parameters = { type = "object", properties = {} },
  run = function(args, ctx) ctx:show { n = 1 } return "badrender result" end,
  render = function() while true do end end,
}
`;

let server: ReplayServer;
let box: Sandbox;
beforeEach(async () => {
  server = await startReplayServer();
  box = sandbox();
  box.extension("blocks.lua", WEATHER);
});
afterEach(async () => {
  await server.close();
  box.remove();
});

describe("tool blocks in print mode (text)", () => {
  it("prints each block once, its body from render(state, view) and its title in the header", async () => {
    server.enqueue(
      { body: openaiToolCalls([{ id: "w1", name: "weather", input: { city: "Oslo" } }, { id: "s1", name: "shown", input: {} }]) },
      { body: openaiText("Sunny in Oslo.") },
    );
    const run = await box.awl(["--trust-project", "--allow", "*", "-p", "weather?"], { env: providerEnv("openai", server.url) });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Sunny in Oslo.\n");
    expect(run.stderr).toBe(["✓ weather Oslo", "  WEATHER-RENDER Oslo: sunny", "  view 97x10", "✓ shown {}", "  shown summary", ""].join("\n"));
  });

  it("falls back to the plain text with a one-line note when a render runs away, and the turn goes on", async () => {
    server.enqueue({ body: openaiToolCalls([{ id: "b1", name: "badrender", input: {} }]) }, { body: openaiText("Still answered.") });
    const run = await box.awl(["--trust-project", "--allow", "*", "-p", "go"], { env: providerEnv("openai", server.url) });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Still answered.\n");
    expect(run.stderr).toMatch(/^✓ badrender \{\}\n {2}render failed, plain text shown: render\(state, view\) ran past 1000 ms\n {2}badrender result\n$/);
  });
});
