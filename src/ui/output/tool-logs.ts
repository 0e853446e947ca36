/**
 * What extensions print (Lua `print`, `io.write`, processes' output sent to the log). A tool call's own lines
 * go inside its block while that block is live on the terminal (tool-blocks.ts claims them), so they never
 * land between a block and its redraw; everything else goes to stderr, each line prefixed `[extension] `, in the
 * output order.
 */
import { extensionLogText } from "../../extensions/lua/log-text.js";
import { outputOrder } from "./output-order.js";

/** Takes what the call `callId` printed; false: it has no live block, the text goes to stderr. */
export type ToolLogClaim = (callId: string, text: string) => boolean;

let claim: ToolLogClaim | undefined;

/** Sets who shows tool calls' lines (the live tool blocks of the running turn); returns the undo. */
export function claimToolLogs(next: ToolLogClaim): () => void {
  claim = next;
  return () => {
    if (claim === next) claim = undefined;
  };
}

/** Shows what `extension` printed; `callId`: printed by that tool call's handler while it ran. */
export function showToolLog(extension: string, text: string, callId?: string): void {
  if (callId !== undefined && claim?.(callId, text)) return;
  outputOrder.write(process.stderr, extensionLogText(extension, text));
}
