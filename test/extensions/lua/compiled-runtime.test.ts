// awl's Lua runtime as the build's bytecode (scripts/compile-lua-runtime.mjs): workers load it instead of parsing the
// text, its messages name the real file wherever the runtime folder is, and a file edited after the build wins.
import { cpSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { luaWasmModule } from "../../../src/extensions/lua/assets.js";
import { WorkerSlot } from "../../../src/extensions/lua/slot.js";
import { packagePath } from "../../../src/util/package-path.js";
import { chunkFromFolder, RUNTIME_SOURCE_MARK } from "../../../src/extensions/lua/worker/compiled-chunk.js";
import { slotSettings, tempDir, writeTree } from "./helpers.js";

/** A copy of the built runtime (with its .luac files) in a folder of its own, whose path is longer than 127 bytes. */
function runtimeCopy(): string {
  const dir = join(tempDir(), "a-folder-name-long-enough-that-the-source-string-needs-two-bytes-for-its-length", "runtime");
  cpSync(packagePath("dist", "extensions", "lua", "runtime"), dir, { recursive: true });
  return dir;
}

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
    expect(compiled.traceback).not.toContain(RUNTIME_SOURCE_MARK);

    const edited = new Date(Date.now() + 60_000);
    utimesSync(awl, edited, edited); // edited since
    const text = await boot(runtime);
    expect(text.marked).toBe(true);
    expect(text.traceback).toMatch(/its-length\/runtime\/awl\.lua:\d+: in local 'fail'/);
  });

  it("leaves what is not such a chunk to the text", () => {
    expect(chunkFromFolder(Buffer.from("return 1"), "/x")).toBeUndefined();
    expect(chunkFromFolder(Buffer.from("\x1bLuaT\x00"), "/x")).toBeUndefined();
  });
});
