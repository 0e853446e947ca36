// The write barrier (docs/checkpoints.md): while a checkpoint is being recorded, a call that only reads runs, and
// every call that can change files (write, exec, no kinds declared, unknown) waits until it is saved.
import { describe, expect, it } from "vitest";
import { WriteBarrierToolSet } from "../../src/checkpoints/write-barrier.js";
import type { ToolCall, ToolDefinition, ToolKind, ToolOutcome, ToolSet } from "../../src/tools/types.js";

const tool = (name: string, kinds: ToolKind[]): ToolDefinition => ({ name, description: name, schema: "{}", extension: "test", file: "test", parallel: true, timeout_ms: 0, kinds });

function recordingTools(): { set: ToolSet; ran: string[] } {
  const ran: string[] = [];
  const set: ToolSet = {
    definitions: () => [tool("ls", ["read"]), tool("fetch", ["network"]), tool("write", ["write"]), tool("bash", ["exec"]), tool("mixed", ["read", "write"])],
    execute: async (call: ToolCall): Promise<ToolOutcome> => {
      ran.push(call.name);
      return { status: "result", content: call.name, is_error: false };
    },
  };
  return { set, ran };
}

function pendingCheckpoint(): { saved: () => Promise<unknown>; finish: () => void } {
  let finish!: () => void;
  const promise = new Promise<void>((resolve) => (finish = resolve));
  return { saved: () => promise, finish };
}

const call = (name: string): ToolCall => ({ id: name, name, input: "{}" });
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("WriteBarrierToolSet", () => {
  it("runs reading calls while the checkpoint is recorded, and holds every call that can change files until it is saved", async () => {
    const { set, ran } = recordingTools();
    const checkpoint = pendingCheckpoint();
    const barrier = new WriteBarrierToolSet(set, checkpoint.saved);
    const signal = new AbortController().signal;
    const calls = ["ls", "fetch", "write", "bash", "mixed", "unknown"].map((name) => barrier.execute(call(name), signal));
    await settle();
    expect(ran).toEqual(["ls", "fetch"]);
    checkpoint.finish();
    await Promise.all(calls);
    expect(ran.sort()).toEqual(["bash", "fetch", "ls", "mixed", "unknown", "write"]);
  });

  it("holds every call when told to (hooks around tool calls run commands of their own)", async () => {
    const { set, ran } = recordingTools();
    const checkpoint = pendingCheckpoint();
    const barrier = new WriteBarrierToolSet(set, checkpoint.saved, () => true);
    const done = barrier.execute(call("ls"), new AbortController().signal);
    await settle();
    expect(ran).toEqual([]);
    checkpoint.finish();
    await done;
    expect(ran).toEqual(["ls"]);
  });

  it("a held call that is cancelled ends as cancelled and never runs", async () => {
    const { set, ran } = recordingTools();
    const checkpoint = pendingCheckpoint();
    const barrier = new WriteBarrierToolSet(set, checkpoint.saved);
    const abort = new AbortController();
    const held = barrier.execute(call("write"), abort.signal);
    abort.abort();
    expect(await held).toEqual({ status: "cancelled" });
    checkpoint.finish();
    await settle();
    expect(ran).toEqual([]);
  });
});
