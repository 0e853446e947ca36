// Issue 4's bad-input list through the built CLI: each case gives a clear message naming what and where, and
// the rest of awl keeps working (the echo tool still runs, a whole tool turn still completes).
import { chmodSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { installExamples, openaiText, openaiToolCalls, openSandboxToNobody, providerEnv, sandbox, type Sandbox } from "./support.js";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
  installExamples(box, ["echo.lua"]);
});
afterEach(() => box.remove());

/** The echo tool still answers, directly. */
async function echoStillWorks(options: { asNobody?: boolean } = {}): Promise<void> {
  expect(await box.awl(["tool", "--trust-project", "call", "echo", '{"message":"alive"}'], options)).toMatchObject({ code: 0, stdout: "alive\n" });
}

/** `awl extensions --json`, parsed. */
async function listing(options: { asNobody?: boolean } = {}): Promise<{ extensions: any[]; skipped: string[] }> {
  const result = await box.awl(["extensions", "--trust-project", "--json", "--no-std-tools"], options); // about the user's extensions
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function state(list: { extensions: any[] }, name: string): any {
  return list.extensions.find((e) => e.name === name);
}

describe("extensions that fail to load", () => {
  it("a syntax error names the file and line", async () => {
    const file = box.extension("syntax.lua", "-- fine\nlocal x = = 1\n");
    const ext = state(await listing(), "syntax");
    expect(ext.state).toBe("failed");
    expect(ext.errors.join("\n")).toContain(`${file}:2:`);
    await echoStillWorks();
  });

  it("an error at load time names the file, line and message", async () => {
    const file = box.extension("loadtime.lua", '-- needs a config\nerror("no config found in ~/.weather")\n');
    const ext = state(await listing(), "loadtime");
    expect(ext.state).toBe("failed");
    expect(ext.errors.join("\n")).toContain(`${file}:2: no config found in ~/.weather`);
    await echoStillWorks();
  });

  it("a missing module names the extension's line and lists the paths beside it first, as Lua 5.4 does", async () => {
    const file = box.extension("needs.lua", '-- needs a module\nlocal m = require("nonexistent")\n');
    const root = join(box.cwd, ".awl/extensions");
    const [error] = state(await listing(), "needs").errors;
    expect(error).toMatch(
      new RegExp(
        `^${escape(file)}:2: module 'nonexistent' not found:\n\tno file '${escape(root)}/nonexistent\\.lua'\n\tno file '${escape(root)}/nonexistent/init\\.lua'\n\tno field package\\.preload\\['nonexistent'\\]\n\tno file '`,
      ),
    );
    expect(error).not.toContain("require.lua");
    expect(error).not.toMatch(/\t\n|\n\t\n|\n\t$/);
    expect(error).toMatch(/\n\tno C module 'nonexistent' \(awl loads pure-Lua modules only\)$/);
  });

  it("a schema with a function inside refuses that tool only, naming the extension, file and line", async () => {
    const file = box.extension(
      "fnschema.lua",
      `awl.register_tool {
  name = "weird", description = "d",
  parameters = { type = "object", properties = { x = function() end } },
  run = function() return "x" end,
}
awl.register_tool("fine", { type = "object" }, function() return "kept" end)\n`,
    );
    const ext = state(await listing(), "fnschema");
    expect(ext.state).toBe("loaded");
    expect(ext.tools.map((t: any) => t.name)).toEqual(["fine"]);
    expect(ext.errors).toEqual([
      `extension "fnschema" (${file}:1): the schema of tool "weird" cannot be sent to the model: cannot encode a function as JSON (at parameters.properties.x)`,
    ]);
    expect(await box.awl(["tool", "--trust-project", "call", "fine"])).toMatchObject({ code: 0, stdout: "kept\n" });
    await echoStillWorks();
  });

  it("a schema that is not valid JSON Schema refuses that tool only, and the model is never offered it", async () => {
    const file = box.extension(
      "badschema.lua",
      `-- a typo in a type
awl.register_tool("bs2", { type = "object", properties = { a = { type = "nosuchtype" } } }, function() return "x" end)
awl.register_tool("fine", { type = "object" }, function() return "kept" end)\n`,
    );
    const expected = `extension "badschema" (${file}:2): the schema of tool "bs2" is not a valid JSON Schema (parameters/properties/a/type must be equal to one of the allowed values`;
    const ext = state(await listing(), "badschema");
    expect(ext.tools.map((t: any) => t.name)).toEqual(["fine"]);
    expect(ext.errors).toHaveLength(1);
    expect(ext.errors[0]).toContain(expected);
    const tools = await box.awl(["tools", "--trust-project"]);
    expect(tools.stdout).toContain(`1 problem:\n  ${expected}`);
    expect(tools.stdout).not.toMatch(/^bs2 /m);
    // Twice through -p: the first run loads for real, the second starts from the registration cache.
    const server = await startReplayServer();
    try {
      for (const run of [1, 2]) {
        server.enqueue({ body: openaiText(`run ${run}`) });
        const turn = await box.awl(["--trust-project", "--allow", "*", "-p", "go", "--no-std-tools"], { env: providerEnv("openai", server.url) });
        expect(turn.code).toBe(0);
        expect(turn.stderr).toContain(expected);
        expect(server.requests[run - 1]!.json().tools.map((t: any) => t.function.name)).toEqual(["echo", "fine"]);
      }
    } finally {
      await server.close();
    }
  });
});

describe("handlers that return something awl cannot send", () => {
  const returning = (value: string) => `awl.register_tool { name = "bad", description = "d",
  parameters = { type = "object", properties = {} }, run = function() return ${value} end }\n`;

  it.each([
    ["nil", "nil", "the tool `bad` returned nothing (nil)"],
    ["a number", "42", "the tool `bad` returned a number (42)"],
    ["a boolean", "true", "the tool `bad` returned a boolean (true)"],
    ["a table without content", "{ summary = 'x' }", "the tool `bad` returned a table without a `content` string (its keys: summary)"],
  ])("%s: an error result saying what it got and what a handler must return", async (_label, value, message) => {
    box.extension("bad.lua", returning(value));
    const result = await box.awl(["tool", "--trust-project", "call", "bad", "--json"]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      status: "result",
      is_error: true,
      content: `${message}; a handler must return a string or a table { content = "..." }`,
    });
    await echoStillWorks();
  });

  it("invalid UTF-8 in a result reaches the model as valid text", async () => {
    box.extension("bytes.lua", returning('"ok \\xff\\xfe end"'));
    const outcome = JSON.parse((await box.awl(["tool", "--trust-project", "call", "bad", "--json"])).stdout);
    expect(outcome.status).toBe("result");
    expect(outcome.content).toBe("ok \uFFFD\uFFFD end\n[awl: the tool's output was not valid UTF-8; invalid bytes were replaced with U+FFFD]");

    // Through a whole turn: the request carrying it back is valid JSON.
    const server: ReplayServer = await startReplayServer();
    try {
      server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "bad", input: {} }]) }, { body: openaiText("ok") });
      const turn = await box.awl(["--trust-project", "--allow", "*", "-p", "go"], { env: providerEnv("openai", server.url) });
      expect(turn.code).toBe(0);
      const tool = server.requests[1]!.json().messages.find((m: any) => m.role === "tool");
      expect(tool.content).toBe(outcome.content);
    } finally {
      await server.close();
    }
  });
});

describe("folders and files discovery cannot use", () => {
  it("an unreadable extension folder", async () => {
    const locked = join(box.cwd, ".awl/extensions/locked");
    mkdirSync(locked);
    writeFileSync(join(locked, "hidden.lua"), "-- never read\n");
    chmodSync(locked, 0o000);
    openSandboxToNobody(box);
    try {
      const list = await listing({ asNobody: true });
      expect(list.skipped).toEqual([`cannot read extension folder ${locked}: permission denied (skipped)`]);
      expect(list.extensions.map((e) => e.name)).toEqual(["echo"]);
      await echoStillWorks({ asNobody: true });
    } finally {
      chmodSync(locked, 0o755); // so the sandbox can be removed when the tests do not run as root
    }
  });

  it("a symlink loop", async () => {
    const loop = join(box.cwd, ".awl/extensions/loop");
    symlinkSync(".", loop);
    const list = await listing();
    expect(list.skipped).toEqual([expect.stringMatching(new RegExp(`^symlink loop: ${loop} leads back to .* \\(skipped\\)$`))]);
    await echoStillWorks();
  });

  it("a 50 MB extension file", async () => {
    const big = box.extension("huge.lua", "");
    truncateSync(big, 50 * 1024 * 1024);
    const list = await listing();
    expect(list.skipped).toEqual([expect.stringContaining(`extension "huge": ${big} is 50.0 MB, over the 4.0 MB limit`)]);
    await echoStillWorks();
  });
});

it("with every bad case at once, a whole tool turn still works and -p warns on stderr", async () => {
  box.extension("syntax.lua", "local x = = 1\n");
  box.extension("loadtime.lua", 'error("boom at load")\n');
  symlinkSync(".", join(box.cwd, ".awl/extensions/loop"));
  truncateSync(box.extension("huge.lua", ""), 50 * 1024 * 1024);
  const server = await startReplayServer();
  try {
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "echo", input: { message: "still here" } }]) }, { body: openaiText("fine") });
    const turn = await box.awl(["--trust-project", "--allow", "*", "-p", "go"], { env: providerEnv("openai", server.url) });
    expect(turn.code).toBe(0);
    expect(turn.stdout).toContain("fine");
    expect(server.requests[1]!.json().messages.find((m: any) => m.role === "tool").content).toBe("still here");
    expect(turn.stderr).toContain('extension "syntax" failed to load');
    expect(turn.stderr).toContain("boom at load");
    expect(turn.stderr).toContain("symlink loop");
    expect(turn.stderr).toContain("50.0 MB");
  } finally {
    await server.close();
  }
});
