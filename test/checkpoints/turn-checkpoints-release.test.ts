// A long session keeps nothing per checkpoint once it is saved (issue 30, "No growth"): the interactive run of 200
// turns found every checkpoint record of the run kept in a list nothing read, and the promise a rewind waits on
// settling with every earlier checkpoint's value nested one level per checkpoint. WeakRefs to the records a
// checkpointer returned, then full GCs (exposed for the test).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect, it } from "vitest";
import type { TurnReceiver } from "../../src/agent/agent.js";
import type { Checkpointer } from "../../src/checkpoints/checkpointer.js";
import type { CheckpointRecord, TakeCheckpoint } from "../../src/checkpoints/store.js";
import { TurnCheckpoints, type CheckpointedSession } from "../../src/checkpoints/turn-checkpoints.js";
import type { Message } from "../../src/model/message.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

it("keeps no record of a saved checkpoint, and settles with nothing however many it took", async () => {
  const records: WeakRef<CheckpointRecord>[] = [];
  // A checkpointer that saves at once (the real one records the workspace in a worker thread).
  const checkpointer = {
    onNotice: undefined,
    prewarm() {},
    async take(request: TakeCheckpoint): Promise<CheckpointRecord> {
      const record: CheckpointRecord = { id: `cp${records.length}`, session: request.session, prompt: request.prompt, when: request.when, created: new Date().toISOString(), root: request.root, complete: true, skipped: [] };
      records.push(new WeakRef(record));
      return record;
    },
  };
  const messages: Message[] = [];
  const session = { sessionId: "s1", conversation: { messages }, agent: { tools: { definitions: () => [{ name: "bash", kinds: ["exec"] }] } } };
  const checkpoints = new TurnCheckpoints(checkpointer as unknown as Checkpointer, "/work", {}, () => {}, session as unknown as CheckpointedSession, () => undefined);
  for (let turn = 1; turn <= 20; turn++) {
    const prompt: Message = { role: "user", content: [{ type: "text", text: `turn ${turn}` }] };
    messages.push(prompt);
    checkpoints.onTurnStart(prompt);
    // A batch that can change files: the turn's checkpoint, then one at its end.
    await checkpoints.wrapReceiver({} as TurnReceiver).onToolBatchStart!([{ type: "tool_use", id: `c${turn}`, name: "bash", input: { command: "true" } }]);
    checkpoints.onTurnEnd();
  }
  expect(await checkpoints.settled()).toBeUndefined();
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(records).toHaveLength(40);
  expect(records.filter((ref) => ref.deref() !== undefined).map((ref) => ref.deref()!.id)).toEqual([]);
});
