/**
 * Conversation → Gemini `streamGenerateContent` request body (docs/providers.md "Google Gemini"). Pure and
 * deterministic; each tool's schema text is spliced in verbatim as `parametersJsonSchema`.
 *
 * - roles: user → `user`, assistant → `model`; system messages (and the system prompt first) join
 *   `systemInstruction`; consecutive contents of one role merge (the API wants them alternating).
 * - thought signatures go back on the part they came with: a Gemini thought (`origin: "gemini"`) with text is
 *   `{text, thought: true, thoughtSignature}`; one with no text carried the signature of the part after it (a
 *   function call or text), so the signature goes onto that part again. Unsigned thoughts and other APIs' thinking
 *   are dropped (Gemini does not need its thought summaries back, and cannot read anyone else's).
 * - a model turn that came from another provider has no signatures; its first function call gets the value
 *   Gemini documents for calls it did not make (`skip_thought_signature_validator`), as Gemini 3 requires one.
 * - tool_use → `functionCall {name, args}` (with `id` when Gemini gave it); tool_result →
 *   `functionResponse {name, response: {output}}` (`{error}` for a failed call), the name found from its call;
 *   images → `inlineData` parts, the model's own images (with their signatures) as well as the user's.
 */
import type { ContentBlock, ImageData, ToolUseBlock } from "../../model/blocks.js";
import type { Conversation } from "../../model/conversation.js";
import { parseToolInput } from "../../model/blocks.js";
import { isProviderError, type ProviderError } from "../errors.js";
import { toolSpecsJSON } from "../tool-specs.js";
import type { ThinkingSetting, ToolSpec } from "../types.js";

export interface GeminiRequestSettings {
  model: string;
  maxTokens?: number | undefined;
  system?: string | undefined;
  thinking?: ThinkingSetting | undefined;
}

/** Tool ids awl makes up for calls Gemini sent without one; they are never sent back as ids. */
export const GENERATED_ID_PREFIX = "awl_gc_";

/** Gemini's documented stand-in signature for function calls it did not generate. */
export const FOREIGN_CALL_SIGNATURE = "skip_thought_signature_validator";

type Part = Record<string, unknown>;
interface Content {
  role: "user" | "model";
  parts: Part[];
}

/** The JSON text of the request body, or a `bad_request` error for a tool whose schema is not a JSON object. */
export function buildGeminiRequestBody(conversation: Conversation, tools: readonly ToolSpec[], settings: GeminiRequestSettings): string | ProviderError {
  const system: string[] = settings.system ? [settings.system] : [];
  const contents: Content[] = [];
  const callNames = new Map<string, string>();
  for (const message of conversation.messages) {
    if (message.role === "system") {
      const text = message.content.flatMap((b) => (b.type === "text" && b.text !== "" ? [b.text] : [])).join("\n\n");
      if (text !== "") system.push(text);
      continue;
    }
    const role = message.role === "assistant" ? "model" : "user";
    const parts = role === "model" ? modelParts(message.content, callNames) : userParts(message.content, callNames);
    if (parts.length === 0) continue;
    const last = contents[contents.length - 1];
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  }
  let body = `{"contents":${JSON.stringify(contents)}`;
  if (system.length > 0) body += `,"systemInstruction":${JSON.stringify({ parts: [{ text: system.join("\n\n") }] })}`;
  if (tools.length > 0) {
    const specs = toolSpecsJSON(
      tools,
      (tool, schema) => `{"name":${JSON.stringify(tool.name)},"description":${JSON.stringify(tool.description)},"parametersJsonSchema":${schema}}`,
    );
    if (isProviderError(specs)) return specs;
    body += `,"tools":[{"functionDeclarations":[${specs.join(",")}]}]`;
  }
  const config = generationConfig(settings);
  if (config !== undefined) body += `,"generationConfig":${JSON.stringify(config)}`;
  return body + "}";
}

/** Gemini 2.5 and later think; they are asked to show their thoughts (`--thinking N` sets the budget, `off` hides them). */
function generationConfig(settings: GeminiRequestSettings): Record<string, unknown> | undefined {
  const config: Record<string, unknown> = {};
  if (settings.maxTokens !== undefined) config.maxOutputTokens = Math.trunc(settings.maxTokens);
  const thinks = /^(?:models\/)?gemini-(?:2\.5|[3-9])/.test(settings.model);
  if (thinks && settings.thinking !== "off") {
    config.thinkingConfig = typeof settings.thinking === "number" ? { includeThoughts: true, thinkingBudget: settings.thinking } : { includeThoughts: true };
  }
  return Object.keys(config).length > 0 ? config : undefined;
}

function modelParts(blocks: readonly ContentBlock[], callNames: Map<string, string>): Part[] {
  const parts: Part[] = [];
  const fromGemini = blocks.some((b) => b.type === "thinking" && b.origin === "gemini");
  let pending: string | undefined;
  let firstCall = true;
  const push = (part: Part): void => {
    if (pending !== undefined) part.thoughtSignature = pending;
    pending = undefined;
    parts.push(part);
  };
  for (const block of blocks) {
    if (block.type === "thinking") {
      if (block.origin !== "gemini" || !block.signature) continue;
      if (block.thinking === "") pending = block.signature;
      else parts.push({ text: block.thinking, thought: true, thoughtSignature: block.signature });
    } else if (block.type === "text") {
      if (block.text !== "" || pending !== undefined) push({ text: block.text });
    } else if (block.type === "tool_use") {
      callNames.set(block.id, block.name);
      const part: Part = { functionCall: functionCall(block) };
      if (firstCall && !fromGemini) part.thoughtSignature = FOREIGN_CALL_SIGNATURE;
      firstCall = false;
      push(part);
    } else if (block.type === "image") push(inlineData(block));
  }
  if (pending !== undefined) parts.push({ text: "", thoughtSignature: pending });
  return parts;
}

function functionCall(block: ToolUseBlock): Record<string, unknown> {
  const parsed = parseToolInput(block.input);
  const args = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : {};
  const call: Record<string, unknown> = { name: block.name, args };
  if (!block.id.startsWith(GENERATED_ID_PREFIX)) call.id = block.id;
  return call;
}

function userParts(blocks: readonly ContentBlock[], callNames: ReadonlyMap<string, string>): Part[] {
  const responses: Part[] = [];
  const others: Part[] = [];
  for (const block of blocks) {
    if (block.type === "tool_result") {
      const response: Record<string, unknown> = { name: callNames.get(block.tool_use_id) ?? "tool", response: block.is_error ? { error: block.content } : { output: block.content } };
      if (!block.tool_use_id.startsWith(GENERATED_ID_PREFIX)) response.id = block.tool_use_id;
      responses.push({ functionResponse: response });
      for (const image of block.images ?? []) others.push(inlineData(image));
    } else if (block.type === "text" && block.text !== "") others.push({ text: block.text });
    else if (block.type === "image") others.push(inlineData(block));
  }
  // Function responses first, in the calls' order, as the API pairs them with the calls.
  return [...responses, ...others];
}

function inlineData(image: ImageData): Part {
  return { inlineData: { mimeType: image.media_type, data: image.data } };
}
