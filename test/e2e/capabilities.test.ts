// Capabilities through the built CLI: metadata read without running code, `awl extensions disable/enable`
// (code not run while disabled), reserved bundled tool names, project over user for a tool name, and the
// author's kit (`awl extensions new` output that `awl tool call` runs at once).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "./support.js";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.remove());

/** A capability folder whose top-level code leaves a marker file: the marker proves its code ran. */
function weather(marker: string, metadata = `awl.capability {\n  label = "Weather",\n  description = "Looking up the weather.",\n  version = "1.0.0", license = "MIT",\n}`): void {
  box.extension("weather/init.lua", `${metadata}
local f = assert(io.open(${JSON.stringify(marker)}, "a")); f:write("ran\\n"); f:close()
awl.register_tool { name = "get_weather", run = function() return "sunny" end }
`);
}

function userExtension(relative: string, source: string): void {
  const file = join(box.home, ".config", "awl", "extensions", relative);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, source);
}

describe("capabilities", () => {
  it("shows metadata without running the code; disable keeps the code from running, enable brings the tools back", async () => {
    const marker = join(box.root, "ran");
    weather(marker);
    const off = await box.awl(["extensions", "disable", "weather"]);
    expect(off.code).toBe(0);
    expect(off.stdout).toContain("weather: disabled");
    const config = JSON.parse(readFileSync(join(box.home, ".config", "awl", "config.json"), "utf8"));
    expect(config).toEqual({ extensions: { weather: { enabled: false } } });

    const listed = await box.awl(["extensions", "--trust-project", "--no-std-tools"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("weather  disabled  .awl/extensions/weather/init.lua  (project)");
    expect(listed.stdout).toContain("    Weather: Looking up the weather.");
    expect(listed.stdout).toContain("    version 1.0.0, license MIT");
    expect(listed.stdout).toContain("switched off in");
    expect((await box.awl(["tools", "--trust-project", "--no-std-tools"])).stdout).not.toContain("get_weather");
    expect(existsSync(marker)).toBe(false);

    const on = await box.awl(["extensions", "enable", "weather"]);
    expect(on.stdout).toContain("weather: enabled");
    const tools = await box.awl(["tools", "--trust-project", "--no-std-tools"]);
    expect(tools.stdout).toContain("get_weather");
    expect(existsSync(marker)).toBe(true);
  });

  it("a project may switch an extension off, never on against the user's off", async () => {
    weather(join(box.root, "ran"));
    await box.awl(["extensions", "disable", "weather"]);
    const on = await box.awl(["extensions", "enable", "weather", "--project"]);
    expect(on.stdout).toContain("weather: still disabled by");
    expect((await box.awl(["tools", "--trust-project", "--no-std-tools"])).stdout).not.toContain("get_weather");
    await box.awl(["extensions", "enable", "weather"]);
    expect((await box.awl(["tools", "--trust-project", "--no-std-tools"])).stdout).toContain("get_weather");
    const offAgain = await box.awl(["extensions", "disable", "weather", "--project"]);
    expect(offAgain.code).toBe(0);
    const userOn = await box.awl(["extensions", "enable", "weather"]);
    expect(userOn.stdout).toContain("weather: still disabled by .awl/config.json");
  });

  it("refuses metadata that is not a plain literal, with file:line, and the tools still load", async () => {
    const marker = join(box.root, "ran");
    weather(marker, `awl.capability {\n  label = "Weather",\n  description = os.getenv("HOME"),\n}`);
    const listed = await box.awl(["extensions", "--trust-project", "--no-std-tools"]);
    expect(listed.stdout).toContain(".awl/extensions/weather/init.lua:3: awl.capability: `description` must be a plain string literal, because awl reads it without running your code; found a function call or variable `os`");
    expect(listed.stdout).toContain("tools: get_weather");
  });
});

describe("reserved names and precedence", () => {
  it("refuses a user tool named like a bundled one, until the bundled extension is disabled", async () => {
    userExtension("myls.lua", `awl.register_tool { name = "ls", run = function() return "my ls" end }\n`);
    const tools = await box.awl(["tools"]);
    expect(tools.stdout).toMatch(/^ls {2}·  extension "std\.ls"/m);
    expect(tools.stdout).toContain('tool "ls" of extension "myls"');
    expect(tools.stdout).toContain('is refused: "ls" belongs to the bundled extension "std.ls"; rename your tool, or switch the bundled one off with awl extensions disable std.ls');
    const listed = await box.awl(["extensions"]);
    expect(listed.stdout).toMatch(/myls {2}loaded[^\n]*\n(.*\n)*? {4}error: tool "ls" of extension "myls"/);

    expect((await box.awl(["extensions", "disable", "std.ls"])).code).toBe(0);
    const call = await box.awl(["tool", "call", "ls", "{}"]);
    expect(call.stdout).toContain("my ls");
    expect((await box.awl(["extensions"])).stdout).toContain("std.ls  disabled");
  });

  it("gives a tool name to the project's extension over the user's, whatever their names", async () => {
    userExtension("aa_user.lua", `awl.register_tool { name = "deploy", run = function() return "user's" end }\n`);
    box.extension("zz_project.lua", `awl.register_tool { name = "deploy", run = function() return "project's" end }\n`);
    const call = await box.awl(["tool", "call", "deploy", "{}", "--trust-project", "--no-std-tools"]);
    expect(call.stdout).toContain("project's");
    const tools = await box.awl(["tools", "--trust-project", "--no-std-tools"]);
    expect(tools.stdout).toContain('"zz_project" keeps it');
  });
});

describe("awl extensions new", () => {
  it("writes a single-file skeleton that awl tool call runs at once, and a .luarc.json", async () => {
    const made = await box.awl(["extensions", "new", "greeter"]);
    expect(made.code).toBe(0);
    expect(made.stdout).toContain("wrote .awl/extensions/greeter.lua");
    // The folder is not trusted yet, so the hint carries the flag that loads its extensions.
    expect(made.stdout).toContain(`try it: awl tool call greeter '{"who": "Ada"}' --trust-project\n`);
    expect(made.stdout).toContain("this folder is not trusted yet: awl permissions trust");
    const call = await box.awl(["tool", "call", "greeter", '{"who": "Ada"}', "--trust-project", "--no-std-tools"]);
    expect(call.code).toBe(0);
    expect(call.stdout).toContain("Hello, Ada!");
    const luarc = JSON.parse(readFileSync(join(box.cwd, ".awl", "extensions", ".luarc.json"), "utf8"));
    expect(existsSync(join(luarc["workspace.library"][0], "awl.lua"))).toBe(true);
    const again = await box.awl(["extensions", "new", "greeter"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("exists already");
  });

  it("writes a capability folder with metadata and a module (--dir, --user)", async () => {
    const made = await box.awl(["extensions", "new", "tools.hello-world", "--dir", "--user"]);
    expect(made.code).toBe(0);
    const call = await box.awl(["tool", "call", "hello_world", '{"who": "Ada"}', "--no-std-tools"]);
    expect(call.stdout).toContain("Hello, Ada!");
    const listed = await box.awl(["extensions", "--no-std-tools"]);
    expect(listed.stdout).toContain("tools.hello-world  loaded");
    expect(listed.stdout).toContain("    tools.hello-world: Greets people.");
    expect(listed.stdout).not.toContain("error");
  });
});
