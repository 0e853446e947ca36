/**
 * awl messages → Anthropic Messages API `system` and `messages` (SPEC §3 rule 8), including the rules for
 * a conversation that started on another provider (issue 3 item 5; docs/providers.md, "Anthropic"):
 * - every system message, wherever it is, joins the top-level `system` text (blank line between);
 * - thinking with a signature goes back as `thinking`, redacted thinking as opaque `redacted_thinking`;
 *   thinking without a signature (an OpenAI-compatible reasoning model's) is dropped: Anthropic rejects
 *   unsigned thinking, and replaying it as text would put words in the model's mouth; so is thinking signed by
 *   another API (`origin`: an OpenAI reasoning item, a Gemini thought signature), which Anthropic cannot verify;
 * - tool ids are rewritten to fit Anthropic ({@link ToolIdMap}), the same way for a tool_use and its result;
 * - empty text blocks are dropped (the API rejects them), then messages left empty are dropped and
 *   consecutive same-role messages merged; in a user message tool_result blocks come first, as the API requires.
 */
import type { ContentBlock, ImageData, ToolResultBlock } from "../../model/blocks.js";
import { MessageMemo } from "../../model/message-memo.js";
import type { Message } from "../../model/message.js";
import { markedErrorText } from "../tool-error-text.js";
import { RawJson, stringifyWithRaw } from "./raw-json.js";
import { ToolIdMap } from "./tool-ids.js";

/** One content block as sent; `tool_use.input` is a {@link RawJson} so the model's own bytes go back. */
export type WireBlock = Record<string, unknown>;

/**
 * What one provider keeps between its requests (a conversation mostly grows at its end, so a request serialises only
 * its new messages): each message's blocks as JSON, with the tool ids they were built with (ids depend on the
 * messages before: when those change, the entry is rebuilt); and the request before, so that a request that only
 * appends to it starts from its tool ids and its messages JSON instead of walking every message again.
 */
export class AnthropicWireCache {
  readonly fragments = new MessageMemo<MessageFragment>();
  last: Checkpoint | undefined;
}

/** A fresh, empty {@link AnthropicWireCache}. */
export function createAnthropicWireCache(): AnthropicWireCache {
  return new AnthropicWireCache();
}

/** The request before, as far as the next one can start from it. */
interface Checkpoint {
  /** Its messages, in order, and the fragment each one was sent as. */
  messages: readonly Message[];
  fragments: readonly MessageFragment[];
  /** The tool ids and system texts after all of them. */
  ids: ToolIdMap;
  system: string[];
  /** Its wire messages before the last three (which a new message may join or move a breakpoint in): their JSON, how many, and the index of the first awl message after them. */
  prefixJSON: string;
  prefixCount: number;
  prefixEnd: number;
}

/** The wire messages a request re-renders at its end, since appended messages may merge into them or move a breakpoint. */
const TAIL_GROUPS = 3;

/** One awl message's blocks as JSON texts (a system message's text instead). */
interface MessageFragment {
  /** A system message's text ("" for none); undefined for other messages. */
  system?: string;
  /** The ids given to its tool_use and tool_result blocks, in block order. */
  ids: readonly string[];
  /** A user message's tool_result blocks (the API wants them first); empty for an assistant message. */
  results: string[];
  /** The other blocks, in their order. */
  others: string[];
  /** `results` and `others` comma-separated, ready to splice. */
  resultsJSON: string;
  othersJSON: string;
  /** The message as a wire message of its own (no `cache_control`). */
  json: string;
  /** Per block of `others`: false for thinking, which cannot carry `cache_control`. */
  cacheable: boolean[];
}

/** Consecutive awl messages that go as one wire message. */
interface WireGroup {
  role: "user" | "assistant";
  members: MessageFragment[];
  /** The index of its first awl message. */
  start: number;
}

export interface ConvertedConversation {
  /** All system text, joined; empty when there is none. */
  system: string;
  /** How many wire messages `messagesJSON` holds. */
  count: number;
  /** The `messages` array's JSON text, with the prompt cache breakpoints (see request.ts). */
  messagesJSON: string;
}

const CACHE_CONTROL = `,"cache_control":{"type":"ephemeral"}}`;

/**
 * The conversation as Anthropic's `system` and `messages`, each message's blocks taken from `cache` when it is
 * unchanged. `cache_control` goes on the last block that can carry it of the last message and of the user message
 * before it.
 */
export function convertMessages(messages: readonly Message[], cache: AnthropicWireCache = createAnthropicWireCache()): ConvertedConversation {
  const last = cache.last !== undefined && extendsRequest(messages, cache.last, cache.fragments) ? cache.last : undefined;
  // Messages before `seen` are the request before's, unchanged: their ids and system texts are in `ids` and `system`.
  const seen = last ? last.messages.length : 0;
  const ids = last ? last.ids : new ToolIdMap();
  const system = last ? last.system : [];
  const groups: WireGroup[] = [];
  const start = last ? last.prefixEnd : 0;
  const used = last ? last.fragments.slice(0, start) : [];
  for (let i = start; i < messages.length; i++) {
    const message = messages[i]!;
    let fragment = cache.fragments.get(message);
    if (i >= seen) {
      if (message.role === "system") {
        if (fragment?.system === undefined) cache.fragments.set(message, (fragment = systemFragment(message)));
        if (fragment.system !== "") system.push(fragment.system!);
      } else {
        const assigned = assignIds(message, ids, fragment?.ids);
        if (!fragment || fragment.system !== undefined || assigned !== fragment.ids)
          cache.fragments.set(message, (fragment = convertMessage(message, message.role, assigned)));
      }
    }
    used.push(fragment!);
    if (message.role === "system" || (fragment!.results.length === 0 && fragment!.others.length === 0)) continue;
    const previous = groups[groups.length - 1];
    if (previous?.role === message.role) previous.members.push(fragment!);
    else groups.push({ role: message.role, members: [fragment!], start: i });
  }
  const end = groups.length - 1;
  let previousUser = -1;
  for (let i = end - 1; i >= 0 && previousUser === -1; i--) if (groups[i]!.role === "user") previousUser = i;
  const keep = Math.max(0, groups.length - TAIL_GROUPS);
  let prefixJSON = last ? last.prefixJSON : "";
  let json = "";
  for (let i = 0; i < groups.length; i++) {
    const group = groupJSON(groups[i]!, i === end || i === previousUser);
    if (i < keep) prefixJSON += prefixJSON === "" ? group : `,${group}`;
    else json += json === "" ? group : `,${group}`;
  }
  const prefixCount = (last ? last.prefixCount : 0) + keep;
  cache.last = { messages: messages.slice(), fragments: used, ids, system, prefixJSON, prefixCount, prefixEnd: keep < groups.length ? groups[keep]!.start : messages.length };
  const all = prefixJSON === "" ? json : json === "" ? prefixJSON : `${prefixJSON},${json}`;
  return { system: system.join("\n\n"), count: prefixCount + groups.length - keep, messagesJSON: all };
}

/** Whether `messages` begins with the request before's messages, each unchanged since (its fragment still valid). */
function extendsRequest(messages: readonly Message[], last: Checkpoint, fragments: MessageMemo<MessageFragment>): boolean {
  if (messages.length < last.messages.length) return false;
  for (let i = 0; i < last.messages.length; i++)
    if (messages[i] !== last.messages[i] || fragments.get(messages[i]!) !== last.fragments[i]) return false;
  return true;
}

function systemFragment(message: Message): MessageFragment {
  return { system: systemText(message), ids: [], results: [], others: [], resultsJSON: "", othersJSON: "", json: "", cacheable: [] };
}

/**
 * The ids for the message's tool_use and tool_result blocks, in block order, from the map that has seen every message
 * before it. `cached` itself when they are the ones it holds (the usual case: nothing is allocated).
 */
function assignIds(message: Message, ids: ToolIdMap, cached: readonly string[] | undefined): readonly string[] {
  let fresh: string[] | undefined;
  let n = 0;
  for (const block of message.content) {
    if (block.type !== "tool_use" && block.type !== "tool_result") continue;
    const id = block.type === "tool_use" ? ids.forToolUse(block.id) : ids.forToolResult(block.tool_use_id);
    if (!fresh && cached?.[n] !== id) fresh = cached ? cached.slice(0, n) : [];
    fresh?.push(id);
    n++;
  }
  if (fresh) return fresh;
  return cached?.length === n ? cached : (cached ?? []).slice(0, n);
}

/** Empty text blocks are dropped (the API rejects them); tool_result blocks of a user message are set apart. */
function convertMessage(message: Message, role: "user" | "assistant", ids: readonly string[]): MessageFragment {
  const fragment: MessageFragment = { ids, results: [], others: [], resultsJSON: "", othersJSON: "", json: "", cacheable: [] };
  let next = 0;
  for (const block of message.content) {
    const id = block.type === "tool_use" || block.type === "tool_result" ? ids[next++]! : "";
    const wire = convertBlock(block, role, id);
    if (!wire) continue;
    const json = stringifyWithRaw(wire);
    if (role === "user" && wire.type === "tool_result") {
      fragment.results.push(json);
      fragment.resultsJSON += fragment.resultsJSON === "" ? json : `,${json}`;
    } else {
      fragment.others.push(json);
      fragment.othersJSON += fragment.othersJSON === "" ? json : `,${json}`;
      fragment.cacheable.push(wire.type !== "thinking" && wire.type !== "redacted_thinking");
    }
  }
  fragment.json = groupJSON({ role, members: [fragment], start: 0 }, false);
  return fragment;
}

/** `{"role":…,"content":[…]}`: every member's tool_result blocks first (a user message), then the other blocks. */
function groupJSON(group: WireGroup, breakpoint: boolean): string {
  if (breakpoint) return markedGroupJSON(group);
  if (group.members.length === 1 && group.members[0]!.json !== "") return group.members[0]!.json;
  let content = "";
  for (const member of group.members) if (member.resultsJSON !== "") content += content === "" ? member.resultsJSON : `,${member.resultsJSON}`;
  for (const member of group.members) if (member.othersJSON !== "") content += content === "" ? member.othersJSON : `,${member.othersJSON}`;
  return `{"role":"${group.role}","content":[${content}]}`;
}

/** {@link groupJSON} with `cache_control` on the last block that can carry it. */
function markedGroupJSON(group: WireGroup): string {
  const blocks: string[] = [];
  for (const member of group.members) blocks.push(...member.results);
  const firstOther = blocks.length;
  for (const member of group.members) blocks.push(...member.others);
  let i = blocks.length - 1;
  for (; i >= 0; i--) if (i < firstOther || cacheableOther(group, i - firstOther)) break;
  if (i >= 0) blocks[i] = blocks[i]!.slice(0, -1) + CACHE_CONTROL;
  return `{"role":"${group.role}","content":[${blocks.join(",")}]}`;
}

/** Whether the group's n-th non-tool_result block may carry `cache_control`. */
function cacheableOther(group: WireGroup, n: number): boolean {
  for (const member of group.members) {
    if (n < member.cacheable.length) return member.cacheable[n]!;
    n -= member.cacheable.length;
  }
  return false;
}

function systemText(message: Message): string {
  let text = "";
  for (const block of message.content) if (block.type === "text" && block.text !== "") text += (text === "" ? "" : "\n\n") + block.text;
  return text;
}

/** One block as sent; `id` is the tool id given to a tool_use or tool_result block. */
function convertBlock(block: ContentBlock, role: "user" | "assistant", id: string): WireBlock | undefined {
  switch (block.type) {
    case "text":
      return block.text === "" ? undefined : { type: "text", text: block.text };
    case "thinking":
      // Only the assistant thinks; a thinking block elsewhere is not something the API could accept.
      if (role !== "assistant" || block.origin !== undefined) return undefined;
      if (block.redacted !== undefined) return { type: "redacted_thinking", data: block.redacted };
      if (block.signature) return { type: "thinking", thinking: block.thinking, signature: block.signature };
      return undefined;
    case "tool_use":
      return { type: "tool_use", id, name: block.name, input: toolInput(block.input) };
    case "tool_result":
      return toolResult(block, id);
    case "image":
      return role === "user" ? imageJSON(block) : undefined;
  }
}

function imageJSON(image: ImageData): WireBlock {
  return { type: "image", source: { type: "base64", media_type: image.media_type, data: image.data } };
}

/**
 * The model's input as a JSON object, its bytes unchanged when they already are one (no number rounding,
 * no reordering). Empty input is `{}`; input that is not a JSON object (a model's broken JSON from another
 * provider) goes as `{}` too, since the API accepts nothing else; its tool_result already told the model.
 */
function toolInput(input: string): RawJson {
  const trimmed = input.trim();
  if (trimmed.startsWith("{")) {
    try {
      JSON.parse(trimmed);
      return new RawJson(trimmed);
    } catch {
      /* not JSON: falls through to {} */
    }
  }
  return new RawJson("{}");
}

function toolResult(block: ToolResultBlock, id: string): WireBlock {
  const wire: WireBlock = { type: "tool_result", tool_use_id: id };
  // A failure is flagged and marked in its text (tool-error-text.ts says why both).
  const text = block.is_error ? markedErrorText(block.content) : block.content;
  if (block.images && block.images.length > 0) {
    const content: WireBlock[] = [];
    if (text !== "") content.push({ type: "text", text });
    for (const image of block.images) content.push(imageJSON(image));
    wire.content = content;
  } else if (text !== "") {
    wire.content = text;
  }
  if (block.is_error) wire.is_error = true;
  return wire;
}
