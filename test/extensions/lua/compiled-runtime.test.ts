// awl's Lua as the build's bytecode (scripts/compile-lua.mjs): workers load it instead of parsing the text, its
// messages name the real file wherever the package is, and a file edited after the build wins.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { luaWasmModule } from "../../../src/extensions/lua/assets.js";
import { WorkerSlot } from "../../../src/extensions/lua/slot.js";
import { packagePath } from "../../../src/util/package-path.js";
import { chunkNamed } from "../../../src/extensions/lua/worker/compiled-chunk.js";
import { slotSettings, writeTree } from "./helpers.js";

/**
 * A copy of the built runtime (with its .luac files) in a folder of its own inside the package (only awl's own
 * bytecode is loaded: tmp/ is ignored by git), whose path is longer than 127 bytes.
 */
function runtimeCopy(): string {
  mkdirSync(packagePath("tmp"), { recursive: true });
  const dir = join(mkdtempSync(packagePath("tmp", "compiled-")), "a-folder-name-long-enough-that-the-source-string-needs-two-bytes-for-its-length", "runtime");
  made.push(dirname(dirname(dir)));
  cpSync(packagePath("dist", "extensions", "lua", "runtime"), dir, { recursive: true });
  return dir;
}
const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Loads an extension that reads a global the text of awl.lua may set, and one that misuses register_tool (for a traceback). */
async function boot(runtimeDir: string): Promise<{ marked: boolean; traceback: string }> {
  const dir = writeTree({
    "probe.lua": `awl.register_tool { name = "marked", run = function() return tostring(AWL_TEXT_MARK) end }`,
    "bad.lua": `awl.register_tool { name = "bad", handler = 1 }`,
  });
  const { slot, loaded } = await WorkerSlot.start(luaWasmModule(), slotSettings(dir, ["probe", "bad"], runtimeDir), () => undefined);
  try {
    const ctx = JSON.stringify({ cwd: dir, workspace: dir, home: dir, spill_dir: dir, result_limit: 1000 });
    const outcome = await slot.run({ entry: "call", extension: "probe", tool: "marked", input: "{}", ctx, cwd: dir, timeoutMs: 5000 }, new AbortController().signal);
    return { marked: outcome.status === "result" && outcome.content === "true", traceback: loaded.errors[0]?.traceback ?? "" };
  } finally {
    await slot.terminate();
  }
}

describe("the compiled Lua runtime", () => {
  it("is what a worker loads, naming its own folder in tracebacks; a file edited after the build is read as text", async () => {
    const runtime = runtimeCopy();
    const awl = join(runtime, "awl.lua");
    writeFileSync(awl, `AWL_TEXT_MARK = true\n${readFileSync(awl, "utf8")}`);
    const built = new Date(Date.now() - 60_000);
    utimesSync(awl, built, built); // older than its bytecode, as the build leaves it
    const compiled = await boot(runtime);
    expect(compiled.marked).toBe(false);
    // Lua shortens a long source to its last 60 characters or so: the end of the copy's folder, then the file
    expect(compiled.traceback).toMatch(/its-length\/runtime\/awl\.lua:\d+: in local 'fail'/);

    const edited = new Date(Date.now() + 60_000);
    utimesSync(awl, edited, edited); // edited since
    const text = await boot(runtime);
    expect(text.marked).toBe(true);
    expect(text.traceback).toMatch(/its-length\/runtime\/awl\.lua:\d+: in local 'fail'/);
  });

  it("loads no bytecode from outside awl's own folder", async () => {
    const dir = writeTree({ "user.lua": `awl.register_tool { name = "which", run = function() return "text" end }` });
    writeFileSync(join(dir, "user.luac"), readFileSync(packagePath("extensions", "std", "ls.luac"))); // newer than user.lua
    const { slot, loaded } = await WorkerSlot.start(luaWasmModule(), slotSettings(dir, ["user"]), () => undefined);
    await slot.terminate();
    expect(loaded.errors).toEqual([]);
    expect(loaded.tools.map((t) => t.name)).toEqual(["which"]); // the text's tool, not ls
  });

  it("leaves what is not such a chunk to the text", () => {
    expect(chunkNamed(Buffer.from("return 1"), "/x")).toBeUndefined();
    expect(chunkNamed(Buffer.from("\x1bLuaT\x00"), "/x")).toBeUndefined();
  });
});
