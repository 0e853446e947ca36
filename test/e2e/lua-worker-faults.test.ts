// Bad input for the Lua workers (issue 30), through the built awl: a worker that cannot start at the moment of
// the first tool call (the call gets an error naming what failed, the next call starts one again), and a Lua
// state that hits its memory cap (its worker is replaced and the session goes on).
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { bodyGate, type ReplayServer } from "../support/replay-server.js";
import { waitUntil } from "../support/processes.js";
import { openaiText, openaiToolCalls, providerEnv, resultsIn, REPO, runNode, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

/** A copy of the built package (its own dist/, the repository's node_modules): its files can be damaged. */
function copiedInstall(): string {
  const install = join(box.root, "install");
  mkdirSync(install);
  for (const part of ["dist", "extensions", "catalogue", "schema", "package.json"]) cpSync(join(REPO, part), join(install, part), { recursive: true });
  symlinkSync(join(REPO, "node_modules"), join(install, "node_modules"));
  return install;
}

it("a Lua worker that cannot start at the first tool call: the call gets why, the next call starts one again", async () => {
  const install = copiedInstall();
  const awl = (args: string[]) => runNode([join(install, "dist/cli/main.js"), ...args], { cwd: box.cwd, env: box.env(providerEnv("openai", server.url)), input: "", asNobody: false });
  writeFileSync(join(box.cwd, "notes.txt"), "a note\n");
  // A first run writes the registration cache: from then on the tools are offered before any worker starts.
  server.enqueue({ body: openaiText("Hello.") });
  expect((await awl(["-p", "--no-session", "hi"])).code).toBe(0);

  // The runtime's boot file is damaged after that (a broken upgrade), and repaired while the model answers.
  const bootFile = join(install, "dist/extensions/lua/runtime/boot.lua");
  const boot = readFileSync(bootFile, "utf8");
  writeFileSync(bootFile, "local x = = 1\n");
  const repaired = bodyGate();
  server.enqueue(
    { body: openaiToolCalls([{ id: "c1", name: "ls", input: {} }]) },
    { body: [{ data: openaiToolCalls([{ id: "c2", name: "ls", input: {} }]), after: repaired.until }] },
    { body: openaiText("Listed.") },
  );
  const running = awl(["-p", "--no-session", "list the files"]);
  await waitUntil(() => server.requests.length === 3, "the first call's result to reach the model");
  writeFileSync(bootFile, boot);
  repaired.open();
  const run = await running;
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain("Listed.");
  const [, , first, second] = server.requests;
  // Lua shortens a long file name from its start ("...").
  expect(resultsIn(first!).c1).toMatch(/^Error: awl could not run tool "ls": the Lua runtime failed to start: .*\/install\/dist\/extensions\/lua\/runtime\/boot\.lua:1: unexpected symbol near '='$/);
  expect(resultsIn(second!).c2).toContain("notes.txt");
});

const SERVED = `
local served = 0
awl.register_tool("served", { type = "object" }, function()
  served = served + 1
  return "call " .. served .. " of this Lua state"
end)
awl.register_tool("hog", { type = "object" }, function(a)
  local t = {}
  for i = 1, a.mb do t[i] = string.rep("x", 1024 * 1024 - 64) .. i end
  return "allocated " .. a.mb .. " MB"
end)
`;

it("a Lua state that hits its memory cap is replaced, and the session goes on", async () => {
  box.extension("served.lua", SERVED);
  server.enqueue(
    { body: openaiToolCalls([{ id: "c1", name: "served", input: {} }]) },
    { body: openaiToolCalls([{ id: "c2", name: "served", input: {} }]) },
    { body: openaiToolCalls([{ id: "c3", name: "hog", input: { mb: 40 } }]) },
    { body: openaiToolCalls([{ id: "c4", name: "served", input: {} }]) },
    { body: openaiText("Still here.") },
  );
  const turn = (text: string) => `${JSON.stringify({ type: "user", message: { role: "user", content: text } })}\n`;
  const flags = ["--input-format", "stream-json", "--output-format", "stream-json", "--no-session", "--trust-project", "--allow", "*"];
  const run = await box.awl([...flags, "--lua-workers", "1", "--lua-memory-mb", "16"], { env: providerEnv("openai", server.url), input: turn("count, then hog") + turn("count again") });
  const events = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
  expect(events.filter((e) => e.type === "result").map((e) => e.stop_reason)).toEqual(["tool_crash", "end_turn"]);
  expect(run.stderr).toContain('the "served" extension crashed: not enough memory (the extension\'s Lua state reached its memory cap of 16 MB)');
  const results = resultsIn(server.requests.at(-1)!);
  expect([results.c1, results.c2]).toEqual(["call 1 of this Lua state", "call 2 of this Lua state"]);
  // One worker (--lua-workers 1): the count starts over in the state that replaced the one at its cap.
  expect(results.c4).toBe("call 1 of this Lua state");
  expect(events.at(-1)).toMatchObject({ type: "result", stop_reason: "end_turn" });
});
