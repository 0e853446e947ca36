// One pool slot's start: the worker thread starts before wasmoon's module is compiled and gets it in a message.
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { describe, expect, it, vi } from "vitest";
import { luaWasmModule } from "../../../src/extensions/lua/assets.js";
import { WorkerSlot } from "../../../src/extensions/lua/slot.js";
import { RESULT_PIECE } from "../../../src/extensions/lua/protocol.js";
import { slotSettings, writeTree } from "./helpers.js";

const noLog = (): void => undefined;

describe("WorkerSlot.start", () => {
  it("loads the extensions once the module arrives, however late", async () => {
    const dir = writeTree({ "hello.lua": `awl.register_tool("hi", {}, function() return "hello" end)` });
    const late = new Promise((resolve) => setTimeout(resolve, 300)).then(() => luaWasmModule());
    const { slot, loaded } = await WorkerSlot.start(late, slotSettings(dir, ["hello"]), noLog);
    expect(loaded.errors).toEqual([]);
    expect(loaded.tools.map((t) => t.name)).toEqual(["hi"]);
    const ctx = JSON.stringify({ cwd: dir, workspace: dir, home: dir, spill_dir: dir, result_limit: 1000 });
    const outcome = await slot.run(
      { entry: "call", extension: "hello", tool: "hi", input: "{}", ctx, cwd: dir, timeoutMs: 5000 },
      new AbortController().signal,
    );
    expect(outcome).toMatchObject({ status: "result", content: "hello", is_error: false });
    await slot.terminate();
  });

  it("a result longer than one message carries crosses in pieces and arrives whole, in order", async () => {
    const lines = `local t = {} for i = 1, 30000 do t[i] = "line " .. i end return table.concat(t, "\\n")`;
    const dir = writeTree({ "long.lua": `awl.register_tool("long", {}, function() ${lines} end)` });
    const { slot } = await WorkerSlot.start(luaWasmModule(), slotSettings(dir, ["long"]), noLog);
    const ctx = JSON.stringify({ cwd: dir, workspace: dir, home: dir, spill_dir: dir, result_limit: 10_000_000 });
    const outcome = await slot.run({ entry: "call", extension: "long", tool: "long", input: "{}", ctx, cwd: dir, timeoutMs: 5000 }, new AbortController().signal);
    const expected = Array.from({ length: 30000 }, (_, i) => `line ${i + 1}`).join("\n");
    expect(expected.length).toBeGreaterThan(8 * RESULT_PIECE);
    expect(outcome).toMatchObject({ status: "result", is_error: false });
    expect(outcome.status === "result" && outcome.content === expected).toBe(true);
    await slot.terminate();
  });

  it("fails with the compile's error when the module cannot be compiled, and the worker ends", async () => {
    const dir = writeTree({ "hello.lua": `awl.register_tool("hi", {}, function() return "hello" end)` });
    const told: { worker: Worker; type: string }[] = [];
    const post = Worker.prototype.postMessage;
    const spy = vi.spyOn(Worker.prototype, "postMessage").mockImplementation(function (this: Worker, ...args: Parameters<Worker["postMessage"]>) {
      told.push({ worker: this, type: (args[0] as { type: string }).type });
      return post.apply(this, args);
    });
    try {
      const broken = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("not a WebAssembly module")), 100));
      await expect(WorkerSlot.start(broken, slotSettings(dir, ["hello"]), noLog)).rejects.toThrow("not a WebAssembly module");
      // what to load, then asked to end its own thread (never terminated while starting)
      expect(told.map((t) => t.type)).toEqual(["load", "exit"]);
      if (told[0]!.worker.threadId !== -1) await once(told[0]!.worker, "exit");
    } finally {
      spy.mockRestore();
    }
  });
});
