// on_unload hooks run when awl exits normally (print mode here; the interactive exit is in
// test/cli/hot-reload.test.ts), and a hook that errors or never returns does not keep awl from exiting.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

const hooked = (hook: string) => `
awl.on_unload(function() ${hook} end)
awl.register_tool { name = "ping", run = function() return "pong" end }
`;
// The project's extensions load only in a trusted folder, and their tools (kinds undeclared: exec) run only when allowed.
const TRUSTED = ["--trust-project", "--allow", "*"];
const markLine = (file: string, line: string) => `local f = assert(io.open(${JSON.stringify(file)}, "a")); f:write("${line}\\n"); f:close()`;
const markHook = (file: string) => markLine(file, "unloaded");

describe("on_unload at exit", () => {
  it("runs the hooks when awl -p ends, after a tool turn and after a turn without tools", async () => {
    const mark = join(box.root, "mark");
    box.extension("hooked.lua", hooked(markHook(mark)).replace("awl.register_tool", `${markLine(mark, "loaded")}\nawl.register_tool`));
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "ping", input: {} }]) }, { body: openaiText("Done.") });
    const tool = await box.awl([...TRUSTED, "-p", "ping it"], { env: providerEnv("openai", server.url) });
    expect(tool.code).toBe(0);
    expect(readFileSync(mark, "utf8")).toBe("loaded\nunloaded\n");
    // No tool is called: the extension loads ahead (a headless run starts loading as it starts) or, when the reply
    // comes first, is given up unloaded. Either way every state it loaded in has had its hook run, once.
    server.enqueue({ body: openaiText("Hi.") });
    const plain = await box.awl([...TRUSTED, "-p", "hi"], { env: providerEnv("openai", server.url) });
    expect(plain.code).toBe(0);
    expect(readFileSync(mark, "utf8")).toMatch(/^loaded\nunloaded\n(loaded\nunloaded\n)?$/);
  });

  it("exits at once with a hook that errors and within seconds with one that never returns", async () => {
    box.extension("bad.lua", hooked(`error("hook broke")`));
    box.extension("hang.lua", hooked(`while true do end`).replace('"ping"', '"ping2"'));
    box.extension("sleepy.lua", hooked(`awl.exec{ "sleep", "600" }`).replace('"ping"', '"ping3"'));
    const mark = join(box.root, "mark");
    box.extension("zlast.lua", hooked(markHook(mark)).replace('"ping"', '"ping4"'));
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "ping", input: {} }]) }, { body: openaiText("Done.") });
    const started = Date.now();
    const run = await box.awl([...TRUSTED, "-p", "ping it"], { env: providerEnv("openai", server.url) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Done.");
    expect(run.stderr).toContain("[bad] on_unload failed:");
    expect(run.stderr).toContain("hook broke");
    expect(run.stderr).toContain("did not finish within 2 s");
    // Well under the 600 s sleep; generous for a loaded machine.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(existsSync(mark)).toBe(true);
  }, 90_000);
});
