// The Lua runtime's limits (worker count, memory cap, default timeout) from flags and the config file,
// through the built CLI.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, sandbox, type Sandbox } from "./support.js";

// Each call marks its start in the project folder, then waits for its peer's mark: calls that run side by side
// meet; a call that runs alone gives up after wait_s and says so (no timing is measured).
const MEET = `
awl.register_tool("meet", { type = "object" }, function(a, ctx)
  local function exists(name) local f = io.open(ctx.cwd .. "/" .. name) if f then f:close() return true end end
  io.open(ctx.cwd .. "/" .. a.me, "w"):close()
  local deadline = os.time() + a.wait_s
  repeat
    if exists(a.peer) then return "met " .. a.peer end
    os.execute("sleep 0.05")
  until os.time() > deadline
  return "alone"
end)
`;

const HOG = `
awl.register_tool("hog", { type = "object" }, function(a)
  local t = {}
  for i = 1, a.mb do t[i] = string.rep("x", 1024 * 1024 - 64) .. i end
  return "allocated " .. a.mb .. " MB"
end)
awl.register_tool("spin", { type = "object" }, function() while true do end end)
`;

let box: Sandbox;
let server: ReplayServer;
beforeEach(async () => {
  box = sandbox();
  server = await startReplayServer();
});
afterEach(async () => {
  await server.close();
  box.remove();
});

function config(values: Record<string, unknown>): void {
  mkdirSync(join(box.home, ".config/awl"), { recursive: true });
  writeFileSync(join(box.home, ".config/awl/config.json"), JSON.stringify(values));
}

/** Two meet calls in one turn through -p; returns their results in the model's order. */
async function twoCalls(waitSeconds: number, flags: string[] = []): Promise<string[]> {
  const input = (me: string, peer: string) => ({ me, peer, wait_s: waitSeconds });
  server.enqueue(
    { body: openaiToolCalls([{ id: "c_a", name: "meet", input: input("a", "b") }, { id: "c_b", name: "meet", input: input("b", "a") }]) },
    { body: openaiText("done") },
  );
  const result = await box.awl(["--trust-project", "--allow", "*", "-p", "go", ...flags], { env: providerEnv("openai", server.url) });
  expect(result.stderr).not.toContain("unknown key");
  expect(result.code).toBe(0);
  return server.requests.at(-1)!.json().messages.filter((m: any) => m.role === "tool").map((m: any) => m.content);
}

it("runs calls one after another with lua_workers = 1 in the config file, side by side with --lua-workers 2", async () => {
  box.extension("meet.lua", MEET);
  config({ lua_workers: 1 });
  expect(await twoCalls(2)).toEqual(["alone", "met a"]);
  box.remove(); // a fresh project: no start marks left over
  box = sandbox();
  box.extension("meet.lua", MEET);
  config({ lua_workers: 1 });
  expect(await twoCalls(60, ["--lua-workers", "2"])).toEqual(["met b", "met a"]);
});

it("awl tool call honours lua_memory_mb and tool_timeout_ms from the config file", async () => {
  const file = box.extension("hog.lua", HOG);
  expect(await box.awl(["tool", "--trust-project", "call", "hog", '{"mb":40}'])).toMatchObject({ code: 0, stdout: "allocated 40 MB\n" });
  config({ lua_memory_mb: 16 });
  const capped = await box.awl(["tool", "--trust-project", "call", "hog", '{"mb":40}']);
  expect(capped.code).toBe(3);
  // Where the handler was when the allocation failed (a memory error reaches no Lua message handler).
  expect(capped.stderr).toBe(
    `awl: the "hog" extension crashed: not enough memory (the extension's Lua state reached its memory cap of 16 MB)\nstack traceback:\n\t${file}:4: in function <${file}:2>\n`,
  );
  expect(await box.awl(["tool", "--trust-project", "call", "hog", '{"mb":4}'])).toMatchObject({ code: 0, stdout: "allocated 4 MB\n" });
  // The flag wins over the file.
  expect(await box.awl(["tool", "--trust-project", "call", "hog", '{"mb":40}', "--lua-memory-mb", "64"])).toMatchObject({ code: 0, stdout: "allocated 40 MB\n" });
  config({ tool_timeout_ms: 300 });
  const spin = await box.awl(["tool", "--trust-project", "call", "spin"]);
  expect(spin.code).toBe(1);
  expect(spin.stderr).toContain("timed out after 300 ms");
}, 60_000); // six runs of awl, each starting a Lua worker

it("a bad limit is a usage error naming the flag, or the file and key", async () => {
  box.extension("hog.lua", HOG);
  const flag = await box.awl(["tools", "--trust-project", "--lua-workers", "0"]);
  expect(flag.code).toBe(2);
  expect(flag.stderr).toContain('--lua-workers expects a whole number of workers from 1 to 256, got "0"');
  config({ lua_memory_mb: "lots" });
  const file = await box.awl(["tool", "--trust-project", "call", "hog", '{"mb":1}']);
  expect(file.code).toBe(2);
  expect(file.stderr).toContain(`the config file ${join(box.home, ".config/awl/config.json")}:1: key "lua_memory_mb" expects a whole number of MB from 8 to 4096, got "lots"`);
  const chat = await box.awl(["--trust-project", "--allow", "*", "-p", "hi"], { env: providerEnv("openai", server.url) });
  expect(chat.code).toBe(2);
  expect(chat.stderr).toContain('key "lua_memory_mb"');
  expect(server.requests).toHaveLength(0);
});
