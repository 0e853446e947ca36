// The extension author's commands through the built CLI: awl tools, awl tool call, awl extensions.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AWL, EXAMPLES, installExamples, sandbox, type Sandbox } from "./support.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** These tests are about the user's extensions: the bundled std tools (test/std/) are left out. */
const NO_STD = "--no-std-tools";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.remove());

describe("awl tools", () => {
  it("lists each tool with its extension, file:line and description, sorted by name", async () => {
    installExamples(box, ["echo.lua", "slow.lua", "text"]);
    const result = await box.awl(["tools", "--trust-project", NO_STD]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    // The system prompt's figure depends on the folder's path (test/std/system-prompt.test.ts checks it).
    const system = /^the system prompt \(awl's default, no instruction file\): (\d+) B ≈ \d+ tokens; with the tools (\d+) B ≈ \d+ tokens$/m;
    const [, alone, both] = system.exec(result.stdout) ?? [];
    expect(Number(both) - Number(alone)).toBe(914);
    expect(result.stdout.replace(system, "the system prompt")).toBe(
      [
        `echo  ·  extension "echo"  ·  .awl/extensions/echo.lua:3  ·  exec  ·  266 B ≈ 67 tokens`,
        "    Echo a message back, unchanged. Use it to check that tools work.",
        `spin  ·  extension "slow"  ·  .awl/extensions/slow.lua:18  ·  exec  ·  192 B ≈ 48 tokens`,
        "    Loop forever inside pcall: shows that awl stops a runaway handler at its timeout.",
        `wait  ·  extension "slow"  ·  .awl/extensions/slow.lua:3  ·  exec  ·  261 B ≈ 65 tokens`,
        "    Wait the given number of seconds (in a child process), then say so.",
        `word_count  ·  extension "text"  ·  .awl/extensions/text/init.lua:5  ·  exec  ·  195 B ≈ 49 tokens`,
        "    (no description)",
        "",
        "4 tools offered to the model: 914 B ≈ 229 tokens in every request",
        "the system prompt",
        "",
      ].join("\n"),
    );
  });

  it("prints JSON with the schema and timeouts, and takes --extensions-dir", async () => {
    const result = await box.awl(["tools", "--trust-project", NO_STD, "--json", "--extensions-dir", EXAMPLES, "--tool-timeout", "5000"]);
    expect(result.code).toBe(0);
    const listing = JSON.parse(result.stdout);
    expect(listing.tools.map((t: any) => [t.name, t.extension, t.timeout_ms])).toEqual([
      ["crash", "crash", 5000],
      ["echo", "echo", 5000],
      ["spin", "slow", 1000],
      ["wait", "slow", 3000],
      ["word_count", "text", 5000],
    ]);
    expect(listing.tools[1]).toMatchObject({ file: join(EXAMPLES, "echo.lua"), line: 3, parallel: true, schema: { type: "object", required: ["message"] } });
    expect(listing.problems).toEqual([]);
  });

  it("says so when there are no tools, and rejects a bad flag with the usage exit code", async () => {
    expect(await box.awl(["tools", "--trust-project", NO_STD])).toMatchObject({ code: 0, stdout: "No tools: no extension or MCP server offers any.\n" });
    const bad = await box.awl(["tools", "--trust-project", "--nope"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--nope");
  });
});

describe("awl tool call", () => {
  beforeEach(() => installExamples(box, ["echo.lua", "crash.lua", "slow.lua", "text"]));

  it("runs a handler directly and prints its result", async () => {
    expect(await box.awl(["tool", "--trust-project", "call", "echo", '{"message":"hi there"}'])).toEqual({ code: 0, stdout: "hi there\n", stderr: "" });
    expect(await box.awl(["tool", "--trust-project", "call", "word_count", "-"], { input: '{"text":"a b c"}' })).toMatchObject({
      code: 0,
      stdout: "1 lines, 3 words, 5 bytes\n",
    });
  });

  it("prints the whole outcome with --json", async () => {
    const result = await box.awl(["tool", "--trust-project", "call", "echo", '{"message":"x"}', "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "result", content: "x", is_error: false });
  });

  it("reports a crash with its traceback and exit code 3", async () => {
    const result = await box.awl(["tool", "--trust-project", "call", "crash"]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^awl: the "crash" extension crashed: .*crash\.lua:8: attempt to index a nil value/);
    expect(result.stderr).toMatch(/crash\.lua:8: in /);
  });

  it("stops a handler at its timeout (the tool's own, or --timeout) with exit code 1", async () => {
    const spin = await box.awl(["tool", "--trust-project", "call", "spin"]);
    expect(spin.code).toBe(1);
    expect(spin.stderr).toContain('tool "spin" timed out after 1000 ms and was stopped');
    const wait = await box.awl(["tool", "--trust-project", "call", "wait", '{"seconds": 5}', "--timeout", "300"]);
    expect(wait.code).toBe(1);
    expect(wait.stderr).toContain('tool "wait" timed out after 300 ms');
  });

  it("checks the input against the schema, and names an unknown tool with the known ones", async () => {
    const invalid = await box.awl(["tool", "--trust-project", "call", "echo", '{"message": 3}']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('invalid input for tool "echo"');
    const notJson = await box.awl(["tool", "--trust-project", "call", "echo", "{nope"]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("the input is not valid JSON: {nope");
    const unknown = await box.awl(["tool", "--trust-project", "call", "nope", NO_STD]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no tool named "nope" (tools: crash, echo, spin, wait, word_count)');
  });

  it("Ctrl-C cancels the call, kills the process it started, and exits 130", async () => {
    const ready = join(box.root, "ready");
    box.extension(
      "hang.lua",
      `awl.register_tool { name = "hang", description = "d", parameters = { type = "object", properties = {} },
  run = function() os.execute("echo $$ > ${ready}.tmp && mv ${ready}.tmp ${ready} && exec sleep 30") return "late" end }`,
    );
    const child = spawn(process.execPath, [AWL, "tool", "--trust-project", "call", "hang"], { cwd: box.cwd, env: box.env(), stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    while (!existsSync(ready)) await new Promise((resolve) => setTimeout(resolve, 20));
    const sleeper = Number(readFileSync(ready, "utf8"));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toContain("awl: cancelled");
    // A killed child may linger a moment as a zombie until it is reaped: wait for it to go, up to 5 s.
    for (let i = 0; i < 250 && alive(sleeper); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive(sleeper)).toBe(false);
  });

  it("shows a table raised with error() as JSON", async () => {
    const file = box.extension("raises.lua", `awl.register_tool("raises", { type = "object" }, function()\n  error({ code = 1, why = "bad" })\nend)\n`);
    const result = await box.awl(["tool", "--trust-project", "call", "raises"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(`awl: the "raises" extension crashed: {"code":1,"why":"bad"}\nstack traceback:\n\t[C]: in function 'error'\n\t${file}:2: in function <${file}:1>\n`);
  });

  it("exits 1 with the message when the handler returns an error result", async () => {
    box.extension("fails.lua", `
awl.register_tool { name = "fails", description = "d", parameters = { type = "object", properties = {} },
  run = function() return { content = "no such city", is_error = true } end }`);
    const result = await box.awl(["tool", "--trust-project", "call", "fails"]);
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toContain('tool "fails" returned an error: no such city');
  });
});

describe("awl extensions", () => {
  it("lists loaded, failed and shadowed extensions with their tools and errors", async () => {
    installExamples(box, ["echo.lua", "text"]);
    box.extension("broken.lua", "local x = = 1\n");
    const userDir = join(box.home, ".config/awl/extensions");
    mkdirSync(userDir, { recursive: true });
    writeFileSync(join(userDir, "echo.lua"), "-- an older echo, hidden by the project's\n");
    const result = await box.awl(["extensions", "--trust-project", NO_STD]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe("broken  failed  .awl/extensions/broken.lua  (project)");
    expect(lines[1]).toMatch(/^ {4}error: .*broken\.lua:1: /);
    expect(lines).toContain("echo  loaded  .awl/extensions/echo.lua  (project)");
    expect(lines).toContain(`echo  shadowed  ${join(userDir, "echo.lua")}  (user)`);
    expect(lines).toContain("    hidden by .awl/extensions/echo.lua");
    expect(lines).toContain("text  loaded  .awl/extensions/text/init.lua  (project)");
    expect(lines).toContain("    tools: word_count");
  });

  it("prints JSON", async () => {
    installExamples(box, ["echo.lua"]);
    const result = await box.awl(["extensions", "--trust-project", NO_STD, "--json"]);
    expect(JSON.parse(result.stdout)).toMatchObject({
      extensions: [{ name: "echo", state: "loaded", source: "project", errors: [], tools: [{ name: "echo" }] }],
      skipped: [],
    });
  });
});

describe("available(ctx)", () => {
  const GATED = `
awl.register_tool { name = "needs_env", description = "Offered only when AWL_TEST_GATE is set.",
  parameters = { type = "object", properties = {} },
  available = function(ctx) return os.getenv("AWL_TEST_GATE") ~= nil end,
  run = function() return "gate open" end }
awl.register_tool { name = "always", description = "d", parameters = { type = "object", properties = {} },
  run = function() return "ok" end }
`;

  it("hides a tool whose available() says no from the model, and shows why to the author", async () => {
    box.extension("gated.lua", GATED);
    const listed = await box.awl(["tools", "--trust-project", NO_STD]);
    expect(listed.stdout).toContain("needs_env  ·  extension \"gated\"  ·  .awl/extensions/gated.lua:2  ·  exec  ·  155 B ≈ 39 tokens\n    Offered only when AWL_TEST_GATE is set.\n    not offered to the model: its available() returned false\n");
    const json = JSON.parse((await box.awl(["tools", "--trust-project", NO_STD, "--json"])).stdout);
    expect(json.tools.map((t: any) => [t.name, t.offered])).toEqual([["always", true], ["needs_env", false]]);
    const call = await box.awl(["tool", "--trust-project", "call", "needs_env"]);
    expect(call.code).toBe(1);
    expect(call.stderr).toContain('the tool "needs_env" is not available here: its available() returned false');

    const open = await box.awl(["tool", "--trust-project", "call", "needs_env"], { env: { AWL_TEST_GATE: "1" } });
    expect(open).toMatchObject({ code: 0, stdout: "gate open\n" });
    const offered = JSON.parse((await box.awl(["tools", "--trust-project", NO_STD, "--json"], { env: { AWL_TEST_GATE: "1" } })).stdout);
    expect(offered.tools.every((t: any) => t.offered)).toBe(true);
  });
});


describe("an extension in a folder with a long path", () => {
  // Lua itself names a file by "..." and its last 56 bytes when the path is longer than 59 bytes.
  const FOLDER = "an-extension-kept-in-a-folder-whose-name-is-rather-long";

  it("names its whole file path in a crash, its traceback and a load error", async () => {
    const file = box.extension(`${FOLDER}/init.lua`, `awl.register_tool("deep", { type = "object" }, function()\n  local t = nil\n  return t.field\nend)\n`);
    expect(file.length).toBeGreaterThan(60);
    const crashed = await box.awl(["tool", "--trust-project", "call", "deep", NO_STD]);
    expect(crashed.code).toBe(3);
    expect(crashed.stderr).toContain(`crashed: ${file}:3: attempt to index a nil value (local 't')\nstack traceback:\n\t${file}:3: in function <${file}:1>`);

    writeFileSync(file, "local x = = 1\n");
    const listed = await box.awl(["extensions", "--trust-project", NO_STD]);
    expect(listed.stdout).toContain(`    error: ${file}:1: unexpected symbol near '='`);
  });
});
