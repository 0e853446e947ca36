/** `awl sessions export`: a session as a Markdown transcript or as the documented conversation JSON form. */
import { parseToolInput, type ContentBlock, type ImageData } from "../model/blocks.js";
import { Conversation } from "../model/conversation.js";
import { conversationToJSON } from "../model/json.js";
import type { Message } from "../model/message.js";
import type { LoadedSession } from "./reader.js";

export type ExportFormat = "md" | "json";

/** What an export shows: a saved session's header, transcript and tool snapshots (or a conversation held in memory). */
export type ExportedSession = Pick<LoadedSession, "header" | "transcript" | "snapshots">;

/** The whole saved transcript (compacted messages included), as text ending in a newline. */
export function exportSession(session: ExportedSession, format: ExportFormat): string {
  return format === "json" ? exportJSON(session) : exportMarkdown(session);
}

/** `{ session: header, version, messages, tools }`: the conversation JSON form plus the header and tool snapshots. */
function exportJSON(session: ExportedSession): string {
  const conversation = conversationToJSON(new Conversation(session.transcript));
  return JSON.stringify({ session: session.header, ...conversation, tools: Object.fromEntries(session.snapshots) }, null, 2) + "\n";
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
  for (const message of session.transcript) out.push("", `## ${heading(message)}`, ...message.content.flatMap(blockMarkdown), ...usageLine(message));
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
