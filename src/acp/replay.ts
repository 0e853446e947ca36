/**
 * `session/load`: a saved awl session told to the client as the updates it would have seen live: the user's
 * prompts (their text and images) as user chunks, the model's text and thinking as chunks, each tool call as a `tool_call` and its
 * end as a `tool_call_update`, its body drawn from its saved `ctx:show` snapshot by the tool's own `render`
 * (no tool runs), else the text the model got.
 */
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { ToolResultBlock, ToolUseBlock } from "../model/blocks.js";
import type { LoadedSession } from "../session/reader.js";
import type { ToolDefinition, ToolSet } from "../tools/types.js";
import { describeCall } from "./tool-calls.js";

/** The space a replayed block's render gets. */
const VIEW = { width: 100, height: 40, expand: true };

export async function replaySession(session: LoadedSession, tools: ToolSet | undefined, cwd: string, send: (update: SessionUpdate) => void): Promise<void> {
  const definitions = new Map<string, ToolDefinition>((tools?.definitions() ?? []).map((d) => [d.name, d]));
  const uses = new Map<string, ToolUseBlock>();
  for (const message of session.transcript) {
    for (const block of message.content) {
      switch (block.type) {
        case "text":
          if (message.role === "system") break;
          send({ sessionUpdate: message.role === "user" ? "user_message_chunk" : "agent_message_chunk", content: { type: "text", text: block.text } });
          break;
        case "thinking":
          if (block.thinking !== "") send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: block.thinking } });
          break;
        case "image":
          send({ sessionUpdate: "user_message_chunk", content: { type: "image", mimeType: block.media_type, data: block.data } });
          break;
        case "tool_use": {
          uses.set(block.id, block);
          const view = describeCall(block, definitions.get(block.name), cwd);
          const title = session.snapshots.get(block.id)?.title ?? view.title;
          send({ sessionUpdate: "tool_call", toolCallId: block.id, title, kind: view.kind, status: "pending", locations: view.locations, rawInput: view.rawInput });
          break;
        }
        case "tool_result":
          send(await resultUpdate(block, uses.get(block.tool_use_id), session, tools));
          break;
      }
    }
  }
}

async function resultUpdate(result: ToolResultBlock, use: ToolUseBlock | undefined, session: LoadedSession, tools: ToolSet | undefined): Promise<SessionUpdate> {
  const saved = session.snapshots.get(result.tool_use_id);
  let text = result.content;
  if (use && saved?.snapshot !== undefined && tools?.render) {
    try {
      const drawn = await tools.render(use.name, saved.snapshot, VIEW);
      if (drawn !== undefined) text = Array.isArray(drawn) ? drawn.join("\n") : drawn;
    } catch {
      // A render that fails shows what the model got instead, as a resumed terminal block does.
    }
  }
  const content: ToolCallContent[] = text === "" ? [] : [{ type: "content", content: { type: "text", text } }];
  return { sessionUpdate: "tool_call_update", toolCallId: result.tool_use_id, status: result.is_error ? "failed" : "completed", content };
}
