/** `awl sessions export`: a session as a Markdown transcript or as the documented conversation JSON form. */
import { parseToolInput, type ContentBlock, type ImageData } from "../model/blocks.js";
import { Conversation } from "../model/conversation.js";
import { conversationToJSON, messageToJSON } from "../model/json.js";
import type { Message } from "../model/message.js";
import type { LoadedSession } from "./reader.js";
import { branchTo, leavesOf } from "./tree.js";

export type ExportFormat = "md" | "json";

/**
 * What an export shows: a saved session's header, transcript and tool snapshots (or a conversation held in memory),
 * and for every branch its tree.
 */
export type ExportedSession = Pick<LoadedSession, "header" | "transcript" | "snapshots"> & Partial<Pick<LoadedSession, "tree" | "leaf">>;

/**
 * The saved transcript of the branch in use (compacted messages included), as text ending in a newline; with
 * `allBranches`, every branch of the session too (docs/sessions.md, "Branches").
 */
export function exportSession(session: ExportedSession, format: ExportFormat, options: { allBranches?: boolean } = {}): string {
  const tree = options.allBranches ? session.tree : undefined;
  if (format === "json") return exportJSON(session, tree);
  if (!tree) return exportMarkdown(session);
  const leaves = leavesOf(tree);
  const parts = [exportMarkdown(session)];
  leaves.forEach((leaf, i) => {
    if (leaf.id === session.leaf) return;
    const messages = branchTo(tree, leaf.id).map((n) => n.message);
    parts.push(`# Branch ${i + 1} of ${leaves.length} (not in use), ending at ${leaf.time}\n` + messagesMarkdown(messages).join("\n") + "\n");
  });
  return parts.join("\n");
}

/**
 * `{ session: header, version, messages, tools }`: the conversation JSON form plus the header and tool snapshots; with
 * every branch, also `tree` (every message with its `id`, `parent` and `time`, in file order) and `leaf` (the last
 * message of the branch in use).
 */
function exportJSON(session: ExportedSession, tree: LoadedSession["tree"] | undefined): string {
  const conversation = conversationToJSON(new Conversation(session.transcript));
  const branches = tree ? { leaf: session.leaf ?? null, tree: [...tree.values()].map((n) => ({ id: n.id, parent: n.parent, time: n.time, message: messageToJSON(n.message) })) } : {};
  return JSON.stringify({ session: session.header, ...conversation, tools: Object.fromEntries(session.snapshots), ...branches }, null, 2) + "\n";
}

function messagesMarkdown(messages: readonly Message[]): string[] {
  return messages.flatMap((message) => ["", `## ${heading(message)}`, ...message.content.flatMap(blockMarkdown), ...usageLine(message)]);
}

function exportMarkdown(session: ExportedSession): string {
  const h = session.header;
  const out = [
    `# awl session ${h.id}`,
    "",
    `- Created: ${h.created}`,
    `- Directory: ${h.cwd}`,
    `- Model: ${h.provider} / ${h.model}`,
    `- awl: ${h.awl_version}`,
  ];
  out.push(...messagesMarkdown(session.transcript));
  return out.join("\n") + "\n";
}

function heading(message: Message): string {
  if (message.role === "user" && message.content.length > 0 && message.content.every((b) => b.type === "tool_result")) return "Tool results";
  return message.role === "system" ? "System" : message.role === "user" ? "User" : "Assistant";
}

function blockMarkdown(block: ContentBlock): string[] {
  switch (block.type) {
    case "text":
      return ["", block.text];
    case "thinking": {
      const lines = block.thinking === "" && block.redacted !== undefined ? ["*(redacted thinking)*"] : block.thinking.split("\n");
      return ["", "> **Thinking**", ">", ...lines.map((l) => (l === "" ? ">" : `> ${l}`))];
    }
    case "tool_use":
      return ["", `**Tool call** \`${block.name}\` (id \`${block.id}\`):`, "", ...fenced(prettyInput(block.input), "json")];
    case "image":
      return ["", imageNote(block)];
    case "tool_result": {
      const images = (block.images ?? []).map(imageNote);
      const label = block.is_error ? "**Tool error**" : "**Tool result**";
      return ["", `${label} for \`${block.tool_use_id}\`:`, "", ...fenced(block.content, ""), ...images.flatMap((i) => ["", i])];
    }
  }
}

function imageNote(image: ImageData): string {
  return `*[image: ${image.media_type}, ${Math.floor((image.data.length * 3) / 4)} bytes]*`;
}

function usageLine(message: Message): string[] {
  const u = message.usage;
  if (!u) return [];
  const cache = u.cache_read_input_tokens ? `, cache read ${u.cache_read_input_tokens}` : "";
  return ["", `*Tokens: in ${u.input_tokens}, out ${u.output_tokens}${cache}*`];
}

/** Tool input as indented JSON when it parses, else verbatim. */
function prettyInput(input: string): string {
  const value = parseToolInput(input);
  return value === undefined || typeof value === "string" ? input : JSON.stringify(value, null, 2);
}

/** A code fence longer than any run of backticks inside, so content cannot close it. */
function fenced(text: string, lang: string): string[] {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return [fence + lang, text, fence];
}
