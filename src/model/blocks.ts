/**
 * Content blocks: the parts of a message (SPEC §2). Plain data, no I/O.
 * The JSON form of each block is exactly its fields, snake_case, as documented in docs/conversation-format.md.
 */

/** Plain text written by a user or the model. */
export interface TextBlock {
  type: "text";
  text: string;
  /** The sources the provider's own web search cited for this text (docs/conversation-format.md), in order. */
  citations?: Citation[];
}
/** A web page the model cited (Anthropic's `web_search_result_location`, OpenAI's `url_citation`). */
export interface Citation {
  url: string;
  title?: string;
  /** The passage cited (Anthropic's `cited_text`). */
  cited_text?: string;
}

/** The model's reasoning. `signature` (Anthropic) must round-trip unchanged; `redacted` holds opaque redacted-thinking data. */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature?: string;
  redacted?: string;
  /**
   * The wire API whose opaque data `signature` is, when it is not Anthropic's: `"openai-responses"` (a reasoning
   * item's encrypted content), `"gemini"` (a thought signature) or `"bedrock"` (Converse reasoning content). Each provider sends back only its own signatures.
   */
  origin?: ThinkingOrigin;
}

/** Wire APIs other than Anthropic's whose thinking carries opaque data that must go back to the same API. */
export const THINKING_ORIGINS = ["openai-responses", "gemini", "bedrock"] as const;
export type ThinkingOrigin = (typeof THINKING_ORIGINS)[number];

/** A tool call. `input` is the raw JSON text as the provider sent it; parse it on demand with {@link parseToolInput}. */
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: string;
}

/** An image, base64-encoded: attached to a tool result, or in a user's message as an {@link ImageBlock}. */
export interface ImageData {
  media_type: string;
  data: string;
}

/** An image in a user's message (a pasted screenshot, an attached file); `media_type` is one of {@link IMAGE_MEDIA_TYPES}. */
export interface ImageBlock extends ImageData {
  type: "image";
}

/** The image types both providers accept. */
export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/** The answer to one tool call. Every tool_use is answered by exactly one tool_result (SPEC §5). */
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: boolean;
  images?: ImageData[];
}

export type ContentBlock = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | ImageBlock;
export type ContentBlockType = ContentBlock["type"];

/**
 * Parses a tool_use input. Empty or whitespace-only input means `{}` (SPEC §3 rule 3).
 * Returns `undefined` for input that is not valid JSON.
 */
export function parseToolInput(input: string): unknown {
  if (input.trim() === "") return {};
  try {
    return JSON.parse(input);
  } catch {
    return undefined;
  }
}
