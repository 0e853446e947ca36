/**
 * A Receiver that records every call, for asserting the exact callback order (SPEC §3).
 * `calls` holds one compact line per call, e.g. `start assistant`, `block_start 0 tool_use call_1 get_weather`,
 * `delta 0 "Hel"`, `block_complete 0 text`, `complete end_turn`, `retry 1 rate_limit`, `error truncated`,
 * `server_tool srvtoolu_1 web_search {"query":"x"}` (with ` error CODE` when it failed).
 */
import type { ContentBlock } from "../../src/model/blocks.js";
import type { Message } from "../../src/model/message.js";
import type { ProviderError } from "../../src/providers/errors.js";
import type { Receiver, RetryNotice } from "../../src/providers/types.js";

export interface RecordingReceiver extends Receiver {
  readonly calls: string[];
  readonly blocks: ContentBlock[];
  readonly retries: RetryNotice[];
  message: Message | undefined;
  error: ProviderError | undefined;
  /** Concatenated deltas per block index since the last onMessageStart. */
  deltas: Map<number, string>;
}

export function recordingReceiver(): RecordingReceiver {
  const r: RecordingReceiver = {
    calls: [],
    blocks: [],
    retries: [],
    message: undefined,
    error: undefined,
    deltas: new Map(),
    onMessageStart(role) {
      r.calls.push(`start ${role}`);
      r.deltas = new Map();
    },
    onBlockStart(type, index, meta) {
      r.calls.push(`block_start ${index} ${type}${meta ? ` ${meta.tool_id} ${meta.tool_name}` : ""}`);
    },
    onContentDelta(index, delta) {
      r.calls.push(`delta ${index} ${JSON.stringify(delta)}`);
      r.deltas.set(index, (r.deltas.get(index) ?? "") + delta);
    },
    onBlockComplete(index, block) {
      r.calls.push(`block_complete ${index} ${block.type}`);
      r.blocks.push(block);
    },
    onServerTool(use) {
      r.calls.push(`server_tool ${use.id} ${use.name} ${JSON.stringify(use.input)}${use.error === undefined ? "" : ` error ${use.error}`}`);
    },
    onMessageComplete(message) {
      r.calls.push(`complete ${message.stop_reason ?? "-"}`);
      r.message = message;
    },
    onError(error) {
      r.calls.push(`error ${error.kind}`);
      r.error = error;
    },
    onRetry(notice) {
      r.calls.push(`retry ${notice.attempt} ${notice.error.kind}`);
      r.retries.push(notice);
    },
  };
  return r;
}
