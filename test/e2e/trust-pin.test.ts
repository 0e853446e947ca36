// Trust pinned to content, through the built `awl -p` (no terminal): once a folder is trusted, a new or changed
// extension, allow rule or MCP server is skipped with one line until the user trusts the change; what was there
// when the user said yes keeps working; narrowing changes never ask; `--trust-project` loads it for one run.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

/** An extension that leaves a marker file when its code runs and offers the tool `name`. */
const marking = (name: string, text = name) => `io.open(${JSON.stringify(join(box.root, `ran-${name}`))}, "w"):close()
awl.register_tool(${JSON.stringify(name)}, { type = "object" }, function() return ${JSON.stringify(text)} end)\n`;
const ran = (name: string) => existsSync(join(box.root, `ran-${name}`));
const offered = (index: number): string[] => (server.requests[index]!.json().tools ?? []).map((t: any) => t.function.name);
const env = () => providerEnv("openai", server.url);
const run = async (extra: string[] = []) => {
  server.enqueue({ body: openaiText("Hi.") });
  const result = await box.awl(["--no-std-tools", "-p", "hi", ...extra], { env: env() });
  expect(result.code, result.stderr).toBe(0);
  return result;
};
const projectConfig = (value: unknown) => {
  mkdirSync(join(box.cwd, ".awl"), { recursive: true });
  writeFileSync(join(box.cwd, ".awl", "config.json"), JSON.stringify(value, null, 2));
};
const trust = async () => expect((await box.awl(["permissions", "trust"])).code).toBe(0);
const awlNotices = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("awl:"));

describe("extensions", () => {
  it("a new extension file is skipped headless with one line; the trusted one keeps working; --trust-project loads it once", async () => {
    box.extension("old.lua", marking("old"));
    await trust();
    box.extension("evil.lua", marking("evil"));

    const skipped = await run();
    expect(ran("evil")).toBe(false);
    expect(offered(0)).toEqual(["old"]);
    expect(awlNotices(skipped.stderr)).toEqual([
      `awl: ${box.cwd} changed since you trusted it, so its new content was not loaded: added extension "evil"; run with --trust-project to load it once, or awl here interactively to review and trust it`,
    ]);

    const listing = await box.awl(["extensions", "--no-std-tools"]);
    expect(listing.stdout).toContain("evil  disabled  .awl/extensions/evil.lua  (project)\n    not loaded: changed since the folder was trusted (run awl here");
    expect(ran("evil")).toBe(false);

    await run(["--trust-project"]);
    expect(ran("evil")).toBe(true);
    expect(offered(1)).toEqual(["evil", "old"]);
    // One run only: the next one skips it again.
    expect((await run()).stderr).toContain('added extension "evil"');
    expect(offered(2)).toEqual(["old"]);
  });

  it("an edited extension body is caught, also when its size and mtime are put back; a module of a directory extension counts", async () => {
    const file = box.extension("tool.lua", marking("tool", "v1"));
    box.extension("pkg/init.lua", `local m = require("helper")\nawl.register_tool("pkg", { type = "object" }, function() return m.text end)\n`);
    const helper = box.extension("pkg/helper.lua", `return { text = "safe" }\n`);
    await trust();
    await run();
    expect(offered(0)).toEqual(["pkg", "tool"]);

    const before = statSync(file);
    copyFileSync(file, `${file}.times`);
    execFileSync("touch", ["-r", file, `${file}.times`]);
    writeFileSync(file, readFileSync(file, "utf8").replace('"v1"', '"v2"'));
    execFileSync("touch", ["-r", `${file}.times`, file]);
    expect(statSync(file).size).toBe(before.size);
    expect(statSync(file).mtimeMs).toBe(before.mtimeMs);
    writeFileSync(helper, `return { text = "evil" }\n`);

    const result = await run();
    expect(result.stderr).toContain('so its new content was not loaded: changed extension "pkg", changed extension "tool";');
    expect(offered(1)).toEqual([]);
  });
});

describe("the config file and .mcp.json", () => {
  it("a new allow rule is not applied until trusted; the pinned one still allows; a new deny rule narrows without asking", async () => {
    box.extension("run.lua", `awl.register_tool("run", { type = "object", properties = { command = { type = "string" } } }, function(i) return "ran " .. i.command end)\n`);
    projectConfig({ permissions: { allow: ["run(ls)"] } });
    await trust();
    projectConfig({ permissions: { allow: ["run(ls)", "run(rm:*)"], deny: ["run(cat:*)"] } });
    server.enqueue(
      { body: openaiToolCalls([{ id: "c1", name: "run", input: { command: "ls" } }, { id: "c2", name: "run", input: { command: "rm -rf x" } }, { id: "c3", name: "run", input: { command: "cat y" } }]) },
      { body: openaiText("ok") },
    );
    const result = await box.awl(["--no-std-tools", "-p", "go"], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    const messages = server.requests[1]!.json().messages;
    expect(messages.find((m: any) => m.tool_call_id === "c1").content).toBe("ran ls");
    expect(messages.find((m: any) => m.tool_call_id === "c2").content).toContain("permission denied");
    expect(messages.find((m: any) => m.tool_call_id === "c3").content).toContain('the rule "run(cat:*)" denies it');
    expect(result.stderr).toContain('so its new content was not loaded: added allow rule "run(rm:*)";');
    expect(awlNotices(result.stderr).join("\n")).not.toContain("cat");
  });

  it("a new .mcp.json server does not start until trusted; nothing is asked when only narrowing changed", async () => {
    writeFileSync(join(box.cwd, ".mcp.json"), JSON.stringify({ mcpServers: {} }));
    await trust();
    const started = join(box.root, "mcp-started");
    writeFileSync(join(box.cwd, ".mcp.json"), JSON.stringify({ mcpServers: { sneaky: { command: "sh", args: ["-c", `touch ${started}`] } } }));
    const result = await run();
    expect(existsSync(started)).toBe(false);
    expect(result.stderr).toContain('added MCP server "sneaky"');
    expect(result.stderr).toContain("changed since the folder was trusted");
    const listed = await box.awl(["mcp", "list"]);
    expect(listed.stdout).toContain("changed since the folder was trusted");
    expect(existsSync(started)).toBe(false);

    // Removing it again runs nothing new: no question, no notice.
    writeFileSync(join(box.cwd, ".mcp.json"), JSON.stringify({ mcpServers: {} }));
    projectConfig({ permissions: { deny: ["bash"] } });
    const quiet = await run();
    expect(quiet.stderr).not.toContain("trusted");
  });
});

describe("trust records", () => {
  it("a folder trusted before pins existed records what it holds on its next run, said once; then a change is caught", async () => {
    box.extension("old.lua", marking("old"));
    mkdirSync(join(box.home, ".config", "awl"), { recursive: true });
    writeFileSync(join(box.home, ".config", "awl", "config.json"), JSON.stringify({ trusted_folders: [box.cwd] }));
    const first = await run();
    expect(awlNotices(first.stderr)).toEqual([
      `awl: trust of ${box.cwd} is now pinned to its content (1 item recorded); from now on a new or changed extension, hook, allow rule or MCP server there is asked about again`,
    ]);
    expect(ran("old")).toBe(true);
    expect(readdirSync(join(box.home, ".config", "awl", "trusted"))).toHaveLength(1);
    expect(awlNotices((await run()).stderr)).toEqual([]);
    box.extension("new.lua", marking("new"));
    expect((await run()).stderr).toContain('added extension "new"');
    expect(ran("new")).toBe(false);
  });

  it("untrust forgets the pin; trusting again pins what is there then", async () => {
    box.extension("a.lua", marking("a"));
    await trust();
    expect(readdirSync(join(box.home, ".config", "awl", "trusted"))).toHaveLength(1);
    expect((await box.awl(["permissions", "untrust"])).code).toBe(0);
    expect(readdirSync(join(box.home, ".config", "awl", "trusted"))).toHaveLength(0);
    box.extension("b.lua", marking("b"));
    await trust();
    expect(awlNotices((await run()).stderr)).toEqual([]);
    expect(offered(0)).toEqual(["a", "b"]);
  });
});
