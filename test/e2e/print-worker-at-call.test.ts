// `awl -p` starts its Lua worker only once a tool call streams (issue 30): a reply that needs no tool, however long
// the model thinks before it, starts no thread (one started while the model thinks costs ≈ 25 MB by the time such a
// reply comes), and a call that comes after the think still runs. Through the built awl: a project extension whose
// top-level code leaves a file says whether any worker loaded the extensions.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, resultsIn, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

/** Well past the agent's 250 ms "slow request" prewarm, which started a worker before. */
const THINK_MS = 1_500;

it("a reply without a tool call after a long think loads no extension; a call after the same think runs", async () => {
  const marker = join(box.root, "loaded");
  box.extension("marker.lua", `
awl.fs.write_text(${JSON.stringify(marker)}, "a worker loaded the extensions")
awl.register_tool("shout", { type = "object", properties = { text = { type = "string" } }, required = { "text" } }, function(input)
  return input.text:upper()
end)
`);
  const awl = (prompt: string) => box.awl(["-p", "--no-session", "--trust-project", "--allow", "*", prompt], { env: providerEnv("openai", server.url) });
  // A first run loads the extensions and writes the registration cache: later runs offer the tools without Lua.
  server.enqueue({ body: openaiText("Hello.") });
  const cold = await awl("hi");
  expect(cold.code, cold.stderr).toBe(0);
  expect(existsSync(marker)).toBe(true);
  rmSync(marker);

  server.enqueue({ body: [{ data: openaiText("Hello again."), delayMs: THINK_MS }] });
  const text = await awl("hi again");
  expect(text.code, text.stderr).toBe(0);
  expect(text.stdout).toContain("Hello again.");
  expect(server.requests.at(-1)!.json().tools.map((t: { function: { name: string } }) => t.function.name)).toContain("shout");
  expect(existsSync(marker)).toBe(false);

  server.enqueue({ body: [{ data: openaiToolCalls([{ id: "c1", name: "shout", input: { text: "after the think" } }]), delayMs: THINK_MS }] }, { body: openaiText("Done.") });
  const call = await awl("shout");
  expect(call.code, call.stderr).toBe(0);
  expect(resultsIn(server.requests.at(-1)!).c1).toBe("AFTER THE THINK");
  expect(existsSync(marker)).toBe(true);
});
