// Hooks (issue 23): the per-call cost of one Lua `tool_call` hook on a warm worker (target ≤ 1 ms p50), measured as
// the hooks' verdict on a call with that hook against the same with none; one command hook (`true`, with the event
// JSON on its stdin, in its own process group) beside the `bash` tool running `true`; and the wall time of
// `awl -p hi` with five hooks configured against none (target: unchanged within noise): five command hooks in the
// user's config, and five `awl.on` handlers in a user extension against the same extension without them. None of
// those hooks fires in a turn without tool calls, so the difference is what configuring them costs.
// Run: `npm run bench -- hooks` (BENCH_RUNS whole-process runs each, default 10).
import { createServer } from "node:http";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LuaToolSet } from "../dist/extensions/lua-tool-set.js";
import { Hooks } from "../dist/hooks/dispatcher.js";
import { LuaHooks } from "../dist/hooks/lua-hooks.js";
import { runHookCommand } from "../dist/hooks/run-command.js";
import { awl, choice, loadText, mad, median, now, percentile, RUNS, sse, timeNode } from "./support.mjs";

const root = mkdtempSync(join(tmpdir(), "awl-bench-hooks-"));
process.on("exit", () => rmSync(root, { recursive: true, force: true }));
const ms = (n) => `${n.toFixed(n < 10 ? 3 : 1)} ms`;
const signal = new AbortController().signal;
const rows = [];

/** p50 and p90 of `n` awaited calls of `fn` after `warm` unmeasured ones. */
async function sample(fn, n, warm = 20) {
  for (let i = 0; i < warm; i++) await fn();
  const samples = [];
  for (let i = 0; i < n; i++) {
    const t = now();
    await fn();
    samples.push(now() - t);
  }
  return { p50: median(samples), p90: percentile(samples, 0.9) };
}

/** The hooks of a run over the extensions in `dir` (no command hooks). */
async function luaHooks(dir) {
  const lua = await LuaToolSet.open({ cwd: root, env: { HOME: root }, extensionDirs: [dir], bundledDir: false, waitForLoad: true, maxSlots: 1 });
  const hooks = new Hooks({ lua: new LuaHooks(lua, () => undefined), commands: [], cwd: root, env: {}, secrets: [], report: (t) => console.error(t), show: () => undefined });
  return { lua, hooks };
}

// 1. One Lua tool_call hook on a warm worker: the hooks' verdict on a bash call, with the hook and with none.
{
  const withHook = join(root, "with-hook");
  const without = join(root, "without-hook");
  mkdirSync(withHook);
  mkdirSync(without);
  writeFileSync(join(withHook, "guard.lua"), `awl.on("tool_call", function(e) if e.name == "bash" and e.input.command:find("rm ") then return { block = true, reason = "no" } end end)\n`);
  writeFileSync(join(without, "guard.lua"), `-- no hooks\n`);
  const call = { id: "c1", name: "bash", input: { command: "ls -la src" } };
  const decision = { action: "allow", reason: "bench" };
  const a = await luaHooks(withHook);
  const b = await luaHooks(without);
  const hooked = await sample(() => a.hooks.toolCall(call, decision, signal), 500);
  const bare = await sample(() => b.hooks.toolCall(call, decision, signal), 500);
  rows.push(`| one Lua \`tool_call\` hook, warm worker (verdict with the hook) | ${ms(hooked.p50)} (p90 ${ms(hooked.p90)}) | ≤ 1 ms p50: ${hooked.p50 <= 1 ? "met" : "**NOT met**"} |`);
  rows.push(`| the same verdict with no hook | ${ms(bare.p50)} (p90 ${ms(bare.p90)}) | |`);
  await Promise.all([a.lua.close(), b.lua.close()]);
}

// 2. One command hook running `true` beside the bash tool running `true`.
{
  const input = JSON.stringify({ session_id: "", transcript_path: "", cwd: root, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "true" } });
  const command = await sample(() => runHookCommand("true", input, { cwd: root, env: { PATH: process.env.PATH }, secrets: [], timeoutMs: 60_000, signal }), 100, 5);
  const std = await LuaToolSet.open({ cwd: root, env: { HOME: root, PATH: process.env.PATH }, waitForLoad: true, maxSlots: 1 });
  const bash = await sample(() => std.execute({ id: "b", name: "bash", input: '{"command":"true"}' }, signal), 100, 5);
  await std.close();
  rows.push(`| one command hook (\`true\`, event JSON on stdin) | ${ms(command.p50)} (p90 ${ms(command.p90)}) | reported |`);
  rows.push(`| beside: the \`bash\` tool running \`true\` | ${ms(bash.p50)} (p90 ${ms(bash.p90)}) | |`);
}

// 3. `awl -p hi` with five hooks configured against none.
{
  const answer = sse(choice({ role: "assistant", content: "ok" }), choice({}, "stop"), { id: "b", choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } });
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(answer);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const home = (name, config, extension) => {
    const dir = join(root, name);
    mkdirSync(join(dir, ".config", "awl", "extensions"), { recursive: true });
    if (config) writeFileSync(join(dir, ".config", "awl", "config.json"), JSON.stringify(config, null, 2));
    if (extension !== undefined) writeFileSync(join(dir, ".config", "awl", "extensions", "watch.lua"), extension);
    return dir;
  };
  const command = (c) => [{ hooks: [{ type: "command", command: c }] }];
  const fiveCommands = { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./check.sh" }] }], PostToolUse: command("./format.sh"), PreCompact: command("./log.sh"), Notification: command("notify-send awl") } };
  fiveCommands.hooks.PostToolUse.push({ matcher: "Edit|Write", hooks: [{ type: "command", command: "./lint.sh" }] });
  const luaFive = `awl.register_tool("note", { type = "object" }, function() return "ok" end)\n` + Array.from({ length: 5 }, (_, i) => `awl.on("${["tool_call", "tool_result", "compaction", "tool_call", "tool_result"][i]}", function() end)\n`).join("");
  const luaNone = `awl.register_tool("note", { type = "object" }, function() return "ok" end)\n`;
  const setups = [
    { name: "no hooks", home: home("none") },
    { name: "five command hooks (user config)", home: home("commands", fiveCommands) },
    { name: "a user extension, no hooks", home: home("ext-none", undefined, luaNone) },
    { name: "the same extension with five `awl.on` handlers", home: home("ext-five", undefined, luaFive) },
  ];
  const times = setups.map(() => []);
  for (let r = 0; r < RUNS + 1; r++) {
    for (const [i, s] of setups.entries()) {
      const env = { PATH: process.env.PATH, HOME: s.home, XDG_CONFIG_HOME: join(s.home, ".config"), AWL_PROVIDER: "openai", AWL_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`, AWL_API_KEY: "k", AWL_MODEL: "gpt-4o" };
      const t = await timeNode([awl, "-p", "hi", "--no-session"], { env, cwd: s.home });
      if (r > 0) times[i].push(t); // the first round warms the registration cache and the disk
    }
  }
  server.close();
  for (const [i, s] of setups.entries()) {
    const base = i === 1 ? times[0] : i === 3 ? times[2] : undefined;
    const delta = base ? ` (${median(times[i]) - median(base) >= 0 ? "+" : ""}${(median(times[i]) - median(base)).toFixed(1)} ms; noise ±${mad(base).toFixed(1)} ms)` : "";
    rows.push(`| \`awl -p hi\`, ${s.name} | ${ms(median(times[i]))}${delta} | ${base ? "unchanged within noise" : ""} |`);
  }
}

console.log("## Hooks (issue 23)\n");
console.log(`Medians (p90 where shown); calls: 500 (Lua hook), 100 (commands); \`awl -p\`: ${RUNS} runs of each set-up, interleaved; ${loadText()}\n`);
console.log("| measure | figure | target |");
console.log("| --- | --- | --- |");
for (const r of rows) console.log(r);
