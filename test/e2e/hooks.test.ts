// Hooks through the built `awl -p` against the local replay server (docs/hooks.md): Lua `awl.on` handlers in a
// project extension and Claude Code-style command hooks in the config files.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

const run = (args: string[] = [], prompt = "go") => box.awl(["--trust-project", "--allow", "*", ...args, "-p", prompt], { env: providerEnv("openai", server.url) });
const sent = (i: number): string => JSON.stringify(server.requests[i]!.json());
const projectConfig = (value: unknown): void => {
  mkdirSync(join(box.cwd, ".awl"), { recursive: true });
  writeFileSync(join(box.cwd, ".awl/config.json"), JSON.stringify(value, null, 2));
};
const commandHooks = (hooks: Record<string, unknown>): void => projectConfig({ hooks });
const script = (name: string, text: string): string => {
  const file = join(box.root, name);
  writeFileSync(file, text);
  return file;
};

describe("Lua hooks", () => {
  it("a tool_call hook blocks bash with a reason the model receives, and the command never runs", async () => {
    box.extension("guard.lua", `awl.on("tool_call", function(e)
  if e.name == "bash" and e.input.command:find("touch") then return { block = true, reason = "no touching here" } end
end)`);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "touch made.txt" } }]) }, { body: openaiText("ok") });
    const r = await run();
    expect(r.code).toBe(0);
    expect(existsSync(join(box.cwd, "made.txt"))).toBe(false);
    expect(sent(1)).toContain("blocked by a hook: no touching here");
  });

  it("a tool_call hook is told the decision the rules make, a compound command read with the shell parser", async () => {
    box.extension("tell.lua", `awl.on("tool_call", function(e) return { block = true, reason = e.decision.action .. ", " .. e.decision.reason } end)`);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "echo a | cat" } }]) }, { body: openaiText("ok") });
    const r = await box.awl(["--trust-project", "--allow", "bash(echo:*)", "--allow", "bash(cat:*)", "-p", "go"], { env: providerEnv("openai", server.url) });
    expect(r.code, r.stderr).toBe(0);
    expect(sent(1)).toContain("blocked by a hook: allow, allow rules cover every command in it");
  });

  it("a tool_call hook rewrites an edit's input and the rewritten edit is what lands; the input is checked again", async () => {
    writeFileSync(join(box.cwd, "a.txt"), "hello world\n");
    box.extension("rewrite.lua", `awl.on("tool_call", function(e)
  if e.name == "edit" then e.input.new_string = "hooked world" return { input = e.input } end
  if e.name == "bash" then return { input = { command = 42 } } end
end)`);
    server.enqueue(
      { body: openaiToolCalls([{ id: "e1", name: "edit", input: { path: "a.txt", old_string: "hello world", new_string: "model world" } }]) },
      { body: openaiToolCalls([{ id: "b1", name: "bash", input: { command: "touch b.txt" } }]) },
      { body: openaiText("done") },
    );
    const r = await run();
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, "a.txt"), "utf8")).toBe("hooked world\n");
    expect(existsSync(join(box.cwd, "b.txt"))).toBe(false);
    expect(sent(2)).toContain("a hook rewrote the input of this call and the new input was refused, so nothing ran");
  });

  it("a rewritten input is decided by the permission rules again: a deny rule stops what the hook made", async () => {
    box.extension("sneak.lua", `awl.on("tool_call", function(e) if e.name == "bash" then return { input = { command = "touch sneaked.txt" } } end end)`);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "echo harmless" } }]) }, { body: openaiText("ok") });
    const r = await run(["--deny", "bash(touch:*)"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(box.cwd, "sneaked.txt"))).toBe(false);
    expect(sent(1)).toContain("permission denied");
  });

  it("tool_result hooks chain: one replaces the content with text blocks and marks it an error, the next sees that", async () => {
    box.extension("a.lua", `awl.on("tool_result", function(e) return { content = { { type = "text", text = "REPLACED" }, { type = "text", text = "TWICE" } }, is_error = true } end)`);
    box.extension("b.lua", `awl.on("tool_result", function(e) return { append = "SAW " .. e.content:gsub("\\n", "+") .. " " .. tostring(e.is_error) } end)`);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "echo original" } }]) }, { body: openaiText("ok") });
    expect((await run()).code).toBe(0);
    const result = server.requests[1]!.json().messages.find((m: { role: string }) => m.role === "tool");
    expect(result.content).toBe("Error: REPLACED\nTWICE\nSAW REPLACED+TWICE true");
  });

  it("a tool_result hook appends text the model sees", async () => {
    box.extension("note.lua", `awl.on("tool_result", function(e) return { append = "NOTE-FROM-HOOK " .. e.name } end)`);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "echo hi" } }]) }, { body: openaiText("ok") });
    const r = await run();
    expect(r.code).toBe(0);
    expect(sent(1)).toContain("NOTE-FROM-HOOK bash");
  });

  it("a turn_end hook makes more model calls, at most 3 in a turn", async () => {
    box.extension("more.lua", `awl.on("turn_end", function(e) return { continue = "keep going " .. e.continues } end)`);
    server.enqueue({ body: openaiText("one") }, { body: openaiText("two") }, { body: openaiText("three") }, { body: openaiText("four") });
    const r = await run();
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(4);
    expect(sent(1)).toContain("keep going 0");
    expect(sent(3)).toContain("keep going 2");
    expect(r.stderr).toContain("a hook asks for one more model call: keep going 0");
  });

  it("a hook that loops forever and one that errors are reported once with file:line, and the turn finishes", async () => {
    box.extension("bad.lua", `awl.on("tool_call", function() while true do end end, { timeout_ms = 300 })
awl.on("tool_call", function() error("boom") end)`);
    server.enqueue(
      { body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "echo one" } }]) },
      { body: openaiToolCalls([{ id: "c2", name: "bash", input: { command: "echo two" } }]) },
      { body: openaiText("finished") },
    );
    const r = await run();
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("finished\n");
    const file = join(box.cwd, ".awl/extensions/bad.lua");
    expect(r.stderr.split(`the "bad" extension's tool_call hook failed: it ran past its deadline of 300 ms and was stopped (${file}:1)`)).toHaveLength(2);
    expect(r.stderr).toMatch(/the "bad" extension's tool_call hook failed: .*boom.*\(.*bad\.lua:2\)/);
    expect(r.stderr.match(/boom/g)).toHaveLength(1);
    expect(sent(1)).toContain("one");
  });

  it("a hook that runs out of memory is reported once with file:line and skipped; the call goes on", async () => {
    const file = box.extension("hog.lua", `awl.on("tool_call", function()
  local t = {} for i = 1, 1e8 do t[i] = string.rep("x", 1000) .. i end
end)`);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "touch ran.txt" } }]) }, { body: openaiText("ok") });
    const r = await run(["--lua-memory-mb", "16"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(box.cwd, "ran.txt"))).toBe(true);
    expect(r.stderr).toContain(`the "hog" extension's tool_call hook failed: not enough memory`);
    expect(r.stderr).toContain(`(${file}:1)`);
  });

  it("handlers of one event run in a defined order: the project's before the user's, then by name, each seeing the last one's change", async () => {
    box.extension("b.lua", `awl.on("user_prompt", function(e) return { prompt = e.prompt .. "|b" } end)`);
    box.extension("a.lua", `awl.on("user_prompt", function(e) return { prompt = e.prompt .. "|a1" } end)
awl.on("user_prompt", function(e) return { prompt = e.prompt .. "|a2" } end)`);
    mkdirSync(join(box.home, ".config/awl/extensions"), { recursive: true });
    writeFileSync(join(box.home, ".config/awl/extensions/0.lua"), `awl.on("user_prompt", function(e) return { prompt = e.prompt .. "|user" } end)`);
    server.enqueue({ body: openaiText("ok") });
    expect((await run(["--no-std-tools"], "p")).code).toBe(0);
    expect(sent(0)).toContain("p|a1|a2|b|user");
  });

  it("a tool_call hook that asks turns an allow into a question; without a terminal that is a deny naming the hook's reason", async () => {
    box.extension("careful.lua", `awl.on("tool_call", function(e) if e.name == "bash" then return { ask = true, reason = "bash needs a look" } end end)`);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "touch asked.txt" } }]) }, { body: openaiText("ok") });
    const r = await run();
    expect(r.code).toBe(0);
    expect(existsSync(join(box.cwd, "asked.txt"))).toBe(false);
    expect(sent(1)).toContain("a hook asks: bash needs a look");
  });

  it("a wrong type or an unknown field is reported with the extension and the field, and the call goes on as without the hook", async () => {
    box.extension("odd.lua", `awl.on("tool_call", function() return { blok = true } end)
awl.on("tool_result", function() return "text" end)`);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "touch ran.txt" } }]) }, { body: openaiText("ok") });
    const r = await run();
    expect(existsSync(join(box.cwd, "ran.txt"))).toBe(true);
    expect(r.stderr).toMatch(/the "odd" extension's tool_call hook failed: it returned the unknown field `blok`; a tool_call hook returns nil or a table with block, reason, input, ask; ignored \(.*odd\.lua:1\)/);
    expect(r.stderr).toMatch(/the "odd" extension's tool_result hook failed: it returned a string \("text"\);.*\(.*odd\.lua:2\)/);
  });

  it("a user_prompt hook rewrites the prompt and adds context the model gets, shown to the user too", async () => {
    box.extension("prompt.lua", `awl.on("user_prompt", function(e) return { prompt = e.prompt .. "!", context = "CTX-42" } end)`);
    server.enqueue({ body: openaiText("ok") });
    const r = await run([], "hello");
    expect(sent(0)).toContain("hello!");
    expect(sent(0)).toContain("CTX-42");
    expect(r.stderr).toContain("hook context: CTX-42");
  });

  it("a user_prompt hook blocks the prompt: nothing is sent and the user reads why", async () => {
    box.extension("prompt.lua", `awl.on("user_prompt", function(e) return { block = true, reason = "not today" } end)`);
    const r = await run([], "hello");
    expect(server.requests).toHaveLength(0);
    expect(r.stderr).toContain("a hook blocked the prompt: not today");
  });
});

describe("command hooks (Claude Code's contract)", () => {
  it("a PreToolUse script that exits 2 on rm blocks Bash, its stderr fed back; other commands run", async () => {
    const guard = script("guard.sh", `#!/bin/sh
input=$(cat)
case "$input" in *'"tool_name":"Bash"'*'rm '*) echo "rm is not allowed" >&2; exit 2;; esac
exit 0
`);
    writeFileSync(join(box.cwd, "keep.txt"), "x");
    commandHooks({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `sh ${guard}` }] }] });
    server.enqueue(
      { body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "rm keep.txt" } }, { id: "c2", name: "bash", input: { command: "touch other.txt" } }]) },
      { body: openaiText("ok") },
    );
    const r = await run();
    expect(r.code).toBe(0);
    expect(existsSync(join(box.cwd, "keep.txt"))).toBe(true);
    expect(existsSync(join(box.cwd, "other.txt"))).toBe(true);
    expect(sent(1)).toContain("blocked by a hook: rm is not allowed");
  });

  it("a PostToolUse hook runs after Edit with tool_input.file_path, in the workspace, without awl's API keys", async () => {
    writeFileSync(join(box.cwd, "f.txt"), "a\n");
    const post = script("post.js", `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const e=JSON.parse(s);
require("fs").writeFileSync("post.json", JSON.stringify({ name: e.tool_name, file: e.tool_input.file_path, event: e.hook_event_name, cwd: process.cwd(), key: process.env.OPENAI_API_KEY ?? null, resp: typeof e.tool_response }));});`);
    commandHooks({ PostToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: `node ${post}` }] }] });
    server.enqueue({ body: openaiToolCalls([{ id: "e1", name: "edit", input: { path: "f.txt", old_string: "a", new_string: "b" } }]) }, { body: openaiText("ok") });
    const r = await run();
    expect(r.code).toBe(0);
    const seen = JSON.parse(readFileSync(join(box.cwd, "post.json"), "utf8"));
    expect(seen).toEqual({ name: "Edit", file: "f.txt", event: "PostToolUse", cwd: box.cwd, key: null, resp: "object" });
  });

  it("UserPromptSubmit stdout reaches the model as context", async () => {
    commandHooks({ UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo SPRINT-CONTEXT-7" }] }] });
    server.enqueue({ body: openaiText("ok") });
    await run();
    expect(sent(0)).toContain("SPRINT-CONTEXT-7");
  });

  it("the JSON output's permissionDecision deny blocks, and updatedInput (Claude Code's field names) replaces the input", async () => {
    writeFileSync(join(box.cwd, "w.txt"), "old\n");
    const deny = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "denied by policy" } });
    const update = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { file_path: "w.txt", content: "from hook\n" } } });
    commandHooks({
      PreToolUse: [
        { matcher: "bash", hooks: [{ type: "command", command: `printf '%s\\n' '${deny}'` }] },
        { matcher: "Write", hooks: [{ type: "command", command: `printf '%s\\n' '${update}'` }] },
      ],
    });
    server.enqueue(
      { body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "touch nope.txt" } }, { id: "w1", name: "write", input: { path: "w.txt", content: "from model\n" } }]) },
      { body: openaiText("ok") },
    );
    const r = await run();
    expect(r.code).toBe(0);
    expect(existsSync(join(box.cwd, "nope.txt"))).toBe(false);
    expect(sent(1)).toContain("blocked by a hook: denied by policy");
    expect(readFileSync(join(box.cwd, "w.txt"), "utf8")).toBe("from hook\n");
  });

  it("updatedInput that fails the tool's schema refuses the call with that message; nothing runs", async () => {
    commandHooks({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo '{"hookSpecificOutput":{"updatedInput":{"command":7}}}'` }] }] });
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "touch x.txt" } }]) }, { body: openaiText("ok") });
    await run();
    expect(existsSync(join(box.cwd, "x.txt"))).toBe(false);
    expect(sent(1)).toContain("the new input was refused, so nothing ran");
  });

  it("a Stop hook that exits 2 makes one more call with its stderr, capped", async () => {
    commandHooks({ Stop: [{ hooks: [{ type: "command", command: "echo 'run the tests' >&2; exit 2" }] }] });
    server.enqueue({ body: openaiText("one") }, { body: openaiText("two") }, { body: openaiText("three") }, { body: openaiText("four") });
    const r = await run();
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(4);
    expect(sent(1)).toContain("run the tests");
  });

  it("a hook that prints 10 MB, never exits or forks a daemon is killed with its process group at the deadline", async () => {
    const pidFile = join(box.root, "daemon.pid");
    commandHooks({
      PreToolUse: [
        { hooks: [{ type: "command", command: "head -c 10000000 /dev/zero | tr '\\\\0' x" }] },
        { hooks: [{ type: "command", command: `(sleep 300 & echo $! > ${pidFile}; wait) ; exit 0`, timeout: 1 }] },
      ],
    });
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "echo ran" } }]) }, { body: openaiText("ok") });
    const r = await run();
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/the PreToolUse hook "\(sleep 300.*ran past its timeout of 1 s and was stopped with its process group/);
    const pid = Number(readFileSync(pidFile, "utf8"));
    // Gone, or a zombie nobody reaps (PID 1 of a container may not): no longer running.
    const state = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]![0] : "gone";
    expect(["gone", "Z"]).toContain(state);
    expect(sent(1)).toContain("ran");
  });

  it("a hook that leaves a daemon behind and exits: the daemon is killed with the hook's process group", async () => {
    const pidFile = join(box.root, "bg.pid");
    commandHooks({ PreToolUse: [{ hooks: [{ type: "command", command: `sleep 300 >/dev/null 2>&1 & echo $! > ${pidFile}; exit 0` }] }] });
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "echo ran" } }]) }, { body: openaiText("ok") });
    const r = await run();
    expect(r.code).toBe(0);
    const pid = Number(readFileSync(pidFile, "utf8"));
    const state = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]![0] : "gone";
    expect(["gone", "Z"]).toContain(state);
  });

  it("with --sandbox a command hook runs in the sandbox: no network, the workspace writable", async () => {
    const probe = script("probe.js", `fetch(process.argv[2]).then(() => "reached", () => "blocked").then((how) => require("fs").writeFileSync("net.txt", how));`);
    commandHooks({ UserPromptSubmit: [{ hooks: [{ type: "command", command: `node ${probe} ${server.url}/probe` }] }] });
    server.enqueue({ body: openaiText("ok") });
    const r = await run(["--sandbox", "--no-std-tools"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, "net.txt"), "utf8")).toBe("blocked");
    // Without the sandbox the same hook reaches the server: the probe tells the two apart.
    server.enqueue({ status: 404, body: "" }, { body: openaiText("ok") });
    expect((await run(["--no-std-tools"])).code).toBe(0);
    expect(readFileSync(join(box.cwd, "net.txt"), "utf8")).toBe("reached");
  });

  it("a malformed hooks entry and a bad matcher are errors with file:line; the other hooks still work", async () => {
    projectConfig({ hooks: { PreToolUse: [{ matcher: "(", hooks: [{ type: "command", command: "exit 2" }] }, { hooks: [{ type: "cmd" }] }], UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo STILL-WORKS" }] }] } });
    server.enqueue({ body: openaiText("ok") });
    const r = await run();
    const file = join(box.cwd, ".awl/config.json");
    expect(r.stderr).toContain(`${file}:5: "hooks.PreToolUse[0].matcher" is not a valid regular expression`);
    expect(r.stderr).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+: "hooks.PreToolUse\\[1\\].hooks\\[0\\]" has the type "cmd"`));
    expect(sent(0)).toContain("STILL-WORKS");
  });
});

describe("events around requests, compaction and sessions", () => {
  it("a before_request hook adds context to each request only: never saved, so it is not repeated, and it is shown", async () => {
    box.extension("ctx.lua", `local n = 0
awl.on("before_request", function(e) n = n + 1 return { context = "TRANSIENT-" .. n .. " of " .. #e.messages } end)`);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "echo hi" } }]) }, { body: openaiText("ok") });
    const r = await run();
    expect(r.code).toBe(0);
    expect(sent(0)).toContain("TRANSIENT-1 of 1");
    expect(sent(1)).toContain("TRANSIENT-2 of 3");
    expect(sent(1)).not.toContain("TRANSIENT-1");
    expect(r.stderr).toContain("hook context (this request only): TRANSIENT-1 of 1");
  });

  it("a compaction hook adds instructions for the summary and PreCompact hears the trigger", async () => {
    box.extension("sum.lua", `awl.on("compaction", function(e) return { context = "KEEP-FILE-NAMES (" .. e.trigger .. ")" } end)`);
    const pre = script("pre.sh", `cat > "${join(box.root, "precompact.json")}"\n`);
    projectConfig({ models: { "test-model": { context_window: 4500 } }, hooks: { PreCompact: [{ hooks: [{ type: "command", command: `sh ${pre}` }] }] } });
    server.enqueue({ body: openaiText("Reply A.") });
    expect((await run(["--no-std-tools"], `Part A: ${"alpha ".repeat(1330)}`)).code).toBe(0);
    server.enqueue({ body: openaiText("SUMMARY") }, { body: openaiText("Reply B.") });
    const r = await run(["--no-std-tools", "-c"], `Part B: ${"bravo ".repeat(1330)}`);
    expect(r.code).toBe(0);
    expect(sent(1)).toContain("KEEP-FILE-NAMES (auto)");
    expect(JSON.parse(readFileSync(join(box.root, "precompact.json"), "utf8"))).toMatchObject({ hook_event_name: "PreCompact", trigger: "auto" });
    expect(r.stderr).toContain("hook instructions for the summary: KEEP-FILE-NAMES (auto)");
  });

  it("SessionStart says startup, resume or fork and its stdout reaches the model; SessionEnd runs at exit", async () => {
    const log = join(box.root, "events.jsonl");
    const record = script("record.sh", `cat >> "${log}"; echo >> "${log}"; echo SESSION-CTX\n`);
    commandHooks({ SessionStart: [{ hooks: [{ type: "command", command: `sh ${record}` }] }], SessionEnd: [{ hooks: [{ type: "command", command: `sh ${record}` }] }] });
    server.enqueue({ body: openaiText("one") }, { body: openaiText("two") }, { body: openaiText("three") });
    expect((await run(["--no-std-tools"])).code).toBe(0);
    expect((await run(["--no-std-tools", "-c"])).code).toBe(0);
    expect((await run(["--no-std-tools", "-c", "--fork"])).code).toBe(0);
    expect(sent(0)).toContain("SESSION-CTX");
    const events = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { hook_event_name: string; source?: string; reason?: string });
    expect(events.map((e) => `${e.hook_event_name}:${e.source ?? e.reason}`)).toEqual([
      "SessionStart:startup", "SessionEnd:exit", "SessionStart:resume", "SessionEnd:exit", "SessionStart:fork", "SessionEnd:exit",
    ]);
  });

  it("a user_prompt hook gets the prompt's text apart from what it carries", async () => {
    box.extension("seen.lua", `awl.on("user_prompt", function(e) return { context = "SEEN[" .. e.prompt .. "]" .. #e.attachments } end)`);
    server.enqueue({ body: openaiText("ok") });
    expect((await run(["--no-std-tools"], "plain words")).code).toBe(0);
    expect(sent(0)).toContain("SEEN[plain words]0");
  });
});

describe("awl hooks", () => {
  it("lists every hook, Lua and command, with event, matcher, file:line and state; the project's also when they do not run", async () => {
    const lua = box.extension("guard.lua", `awl.on("tool_call", function() end, { timeout_ms = 250 })`);
    commandHooks({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "sh check.sh" }] }], Stop: [{ hooks: [{ type: "shell" }] }] });
    mkdirSync(join(box.home, ".config/awl"), { recursive: true });
    writeFileSync(join(box.home, ".config/awl/config.json"), JSON.stringify({ hooks: { SessionEnd: [{ hooks: [{ type: "command", command: "echo bye", timeout: 2 }] }] } }, null, 2));
    const trusted = await box.awl(["hooks", "--trust-project", "--no-std-tools"]);
    expect(trusted.code).toBe(0);
    const lines = trusted.stdout.split("\n");
    expect(lines[0]).toBe(`tool_call  lua "guard"  .awl/extensions/guard.lua:1  active, deadline 250 ms`);
    expect(lines[1]).toBe(`PreToolUse (Bash)  command "sh check.sh"  .awl/config.json:7  active, deadline 60 s`);
    expect(lines[2]).toBe(`SessionEnd  command "echo bye"  ${join(box.home, ".config/awl/config.json")}:6  active, deadline 2 s`);
    expect(trusted.stdout).toMatch(/left out:\n  .*\.awl\/config\.json:\d+: "hooks\.Stop\[0\]\.hooks\[0\]" has the type "shell"/);

    const untrusted = await box.awl(["hooks", "--no-std-tools", "--json"]);
    const listed = JSON.parse(untrusted.stdout) as { version: number; hooks: { event: string; kind: string; state: string; file: string }[] };
    expect(listed.version).toBe(1);
    expect(listed.hooks.map((h) => `${h.kind} ${h.event}: ${h.state.split(" (")[0]}`)).toEqual(["command PreToolUse: not run: this folder is not trusted", "command SessionEnd: active"]);
    expect(untrusted.stderr).toContain("not trusted");
    void lua;
  });
});

describe("trust", () => {
  it("a project's hooks (Lua and command) do not run before the folder is trusted", async () => {
    box.extension("guard.lua", `awl.on("user_prompt", function() return { context = "LUA-HOOK-RAN" } end)`);
    commandHooks({ UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo CMD-HOOK-RAN; touch ran.txt" }] }], SessionStart: [{ hooks: [{ type: "command", command: "touch started.txt" }] }] });
    server.enqueue({ body: openaiText("ok") });
    const r = await box.awl(["--no-std-tools", "-p", "hi"], { env: providerEnv("openai", server.url) });
    expect(r.code).toBe(0);
    expect(sent(0)).not.toContain("HOOK-RAN");
    expect(existsSync(join(box.cwd, "ran.txt"))).toBe(false);
    expect(existsSync(join(box.cwd, "started.txt"))).toBe(false);
  });

  it("after trust, a hook added or changed in .awl/config.json is skipped headless with one line, the trusted one runs; --trust-project runs it once", async () => {
    const hook = (command: string) => ({ hooks: [{ type: "command", command }] });
    commandHooks({ UserPromptSubmit: [hook("echo TRUSTED-HOOK")] });
    expect((await box.awl(["permissions", "trust"])).code).toBe(0);
    commandHooks({ UserPromptSubmit: [hook("echo TRUSTED-HOOK"), hook("echo NEW-HOOK; touch new-ran.txt")], SessionStart: [hook("touch start-ran.txt")] });
    const go = () => box.awl(["--no-std-tools", "-p", "hi"], { env: providerEnv("openai", server.url) });
    server.enqueue({ body: openaiText("ok") }, { body: openaiText("ok") }, { body: openaiText("ok") });
    const skipped = await go();
    expect(skipped.code).toBe(0);
    expect(sent(0)).toContain("TRUSTED-HOOK");
    expect(sent(0)).not.toContain("NEW-HOOK");
    expect(existsSync(join(box.cwd, "new-ran.txt"))).toBe(false);
    expect(existsSync(join(box.cwd, "start-ran.txt"))).toBe(false);
    expect(skipped.stderr.split("\n").filter((l) => l.includes("changed since you trusted it"))).toEqual([
      `awl: ${box.cwd} changed since you trusted it, so its new content was not loaded: added hook "UserPromptSubmit: echo NEW-HOOK; touch new-ran.txt", added hook "SessionStart: touch start-ran.txt"; run with --trust-project to load it once, or awl here interactively to review and trust it`,
    ]);
    const listed = await box.awl(["hooks", "--no-std-tools"]);
    expect(listed.stdout).toContain(`UserPromptSubmit  command "echo NEW-HOOK; touch new-ran.txt"  .awl/config.json:14  not run: changed since the folder was trusted`);

    expect((await box.awl(["--no-std-tools", "--trust-project", "-p", "hi"], { env: providerEnv("openai", server.url) })).code).toBe(0);
    expect(sent(1)).toContain("NEW-HOOK");
    expect(existsSync(join(box.cwd, "start-ran.txt"))).toBe(true);
    // One run only.
    expect((await go()).code).toBe(0);
    expect(sent(2)).not.toContain("NEW-HOOK");
  });
});
