/**
 * The model's checklist (the `todo` std tool, docs/std-tools.md) as the conversation holds it: the input of the
 * last `todo` call. The status line shows it in short; ACP clients get it as the session's plan. Nothing else
 * stores it, so a resumed session has its list back as it was.
 */
import type { Conversation } from "../model/conversation.js";
import type { Message } from "../model/message.js";
import { parseToolInput } from "../model/blocks.js";

export type TodoStatus = "pending" | "in_progress" | "completed";

export interface TodoItem {
  content: string;
  status: TodoStatus;
}

const STATUSES = new Set<string>(["pending", "in_progress", "completed"]);

/** The items of a `todo` call's input; undefined when it is not a list of items. */
export function todoItems(input: unknown): TodoItem[] | undefined {
  const todos = (input as { todos?: unknown } | null)?.todos;
  if (!Array.isArray(todos)) return undefined;
  const items = todos.filter((t): t is TodoItem => typeof t?.content === "string" && STATUSES.has(t?.status));
  return items.length === todos.length ? items : undefined;
}

/**
 * The list as of the last `todo` call in `messages` that the tool took, or undefined when there is none. A refused
 * call (more than the 100 items the tool takes, a bad status) changed nothing: the list before it stands.
 */
export function lastTodoList(messages: readonly Message[]): TodoItem[] | undefined {
  const refused = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "user") {
      for (const block of message.content) if (block.type === "tool_result" && block.is_error) refused.add(block.tool_use_id);
      continue;
    }
    if (message.role !== "assistant") continue;
    for (let j = message.content.length - 1; j >= 0; j--) {
      const block = message.content[j]!;
      if (block.type === "tool_use" && block.name === "todo" && !refused.has(block.id)) {
        const items = todoItems(parseToolInput(block.input));
        if (items) return items;
      }
    }
  }
  return undefined;
}

/** A short line for the status line: `todo 2/5 · fix the parser`; undefined with no list (or an empty one). */
export class TodoSummary {
  private seen: { conversation: Conversation; length: number; text: string | undefined } | undefined;

  text(conversation: Conversation): string | undefined {
    // Read again only when the conversation grew (the status line is drawn often).
    if (this.seen?.conversation === conversation && this.seen.length === conversation.length) return this.seen.text;
    const items = lastTodoList(conversation.messages);
    let text: string | undefined;
    if (items && items.length > 0) {
      const done = items.filter((t) => t.status === "completed").length;
      const current = items.find((t) => t.status === "in_progress");
      text = `todo ${done}/${items.length}${current ? ` · ${current.content.replace(/\s+/g, " ")}` : ""}`;
    }
    this.seen = { conversation, length: conversation.length, text };
    return text;
  }
}
