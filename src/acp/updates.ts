/**
 * A turn's events as ACP `session/update`s: text and thinking as message and thought chunks; each tool call as a
 * `tool_call` once the model has sent it whole (kind, title, locations, input), then `tool_call_update`s as it
 * runs (in progress, a new title) and ends (completed or failed, the text the model got, a diff for an edit); a
 * search the provider ran itself as one `tool_call` that has ended.
 */
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { TurnEvent } from "../agent-session/events.js";
import type { ToolCall, ToolDefinition, ToolOutcome } from "../tools/types.js";
import { parseToolInput, type ToolResultBlock } from "../model/blocks.js";
import { todoItems } from "../ui/todo-list.js";
import { describeCall, readSmallText, textBeforeEdit, type CallView } from "./tool-calls.js";

export class TurnUpdates {
  /** Each call's view, and the edited file's text before it ran. */
  private readonly calls = new Map<string, { view: CallView; before: string | null | undefined }>();

  constructor(
    private readonly definitions: () => readonly ToolDefinition[],
    private readonly cwd: string,
    private readonly send: (update: SessionUpdate) => void,
  ) {}

  handle(event: TurnEvent): void {
    switch (event.type) {
      case "text_delta":
        return this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.text } });
      case "thinking_delta":
        return this.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.thinking } });
      case "retry":
        // What streamed of the failed attempt cannot be taken back from the client: say so, as print mode does.
        return this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "\n\n(awl: the answer above was cut off; it is asked for again)\n\n" } });
      case "block_complete":
        if (event.block.type === "tool_use") this.announce(event.block);
        return;
      case "tool_start": {
        const known = this.calls.get(event.call.id) ?? this.announce(event.call);
        known.before = textBeforeEdit(known.view);
        return this.send({ sessionUpdate: "tool_call_update", toolCallId: event.call.id, status: "in_progress" });
      }
      case "tool_progress":
        if (event.update.kind === "title") this.send({ sessionUpdate: "tool_call_update", toolCallId: event.call.id, title: event.update.text });
        return;
      case "tool_end":
        return this.finish(event.call, event.outcome, event.result);
      case "server_tool": {
        // The provider's own web search: a call that had ended when awl heard of it (its pages went to the model).
        const { id, name, input, error } = event.use;
        const { title } = describeCall({ name, input: JSON.stringify(input) }, undefined, this.cwd);
        const content: ToolCallContent[] = error === undefined ? [] : [{ type: "content", content: { type: "text", text: error } }];
        return this.send({ sessionUpdate: "tool_call", toolCallId: id, title, kind: "search", status: error === undefined ? "completed" : "failed", rawInput: input, content });
      }
      default:
        return;
    }
  }

  private announce(call: Pick<ToolCall, "id" | "name" | "input">): { view: CallView; before: string | null | undefined } {
    const definition = this.definitions().find((d) => d.name === call.name);
    const view = describeCall(call, definition, this.cwd);
    const known = { view, before: undefined };
    this.calls.set(call.id, known);
    this.send({ sessionUpdate: "tool_call", toolCallId: call.id, title: view.title, kind: view.kind, status: "pending", locations: view.locations, rawInput: view.rawInput });
    return known;
  }

  private finish(call: ToolCall, outcome: ToolOutcome, result: ToolResultBlock): void {
    const known = this.calls.get(call.id);
    this.calls.delete(call.id);
    const failed = result.is_error === true || outcome.status !== "result";
    const content: ToolCallContent[] = [];
    if (!failed && known && known.before !== undefined) {
      const path = known.view.locations[0]!.path;
      const after = readSmallText(path);
      if (typeof after === "string" && after !== known.before) content.push({ type: "diff", path, oldText: known.before, newText: after });
    }
    if (result.content !== "") content.push({ type: "content", content: { type: "text", text: result.content } });
    this.send({
      sessionUpdate: "tool_call_update",
      toolCallId: call.id,
      status: failed ? "failed" : "completed",
      content,
      rawOutput: { content: result.content, ...(result.is_error && { is_error: true }) },
    });
    // The model's checklist is the session's plan (ACP's plan updates carry the whole list each time).
    const todos = !failed && call.name === "todo" ? todoItems(parseToolInput(call.input)) : undefined;
    if (todos) this.send({ sessionUpdate: "plan", entries: todos.map((t) => ({ content: t.content, priority: "medium", status: t.status })) });
  }
}
