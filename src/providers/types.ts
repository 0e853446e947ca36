import type { ContentBlock, ContentBlockType } from "../model/blocks.js";
import type { Conversation } from "../model/conversation.js";
import type { Message, Role } from "../model/message.js";
import type { ProviderError } from "./errors.js";

/** Metadata given with `onBlockStart`: set for tool_use blocks only. */
export interface BlockMeta {
  tool_id: string;
  tool_name: string;
}

/**
 * A tool the provider ran on its own side (its web search), reported once its outcome is known, between the blocks
 * it came between. It is not part of the conversation: the model's text before and after it are separate blocks.
 */
export interface ServerToolUse {
  /** The provider's id of the call (`srvtoolu_…`, `ws_…`). */
  id: string;
  /** The provider's name for the tool (`web_search`). */
  name: string;
  /** What it was asked, as the provider sent it (`{query}` for a search). */
  input: Record<string, unknown>;
  /** Why it failed (the provider's error code or status), when it did. */
  error?: string;
}

/** A retry about to happen: everything streamed since the last `onMessageStart` is void. */
export interface RetryNotice {
  error: ProviderError;
  /** 1 for the first retry. */
  attempt: number;
  max_retries: number;
  delay_ms: number;
}

/**
 * The seed's Receiver contract (SPEC §3). For every provider, one message streams as:
 * `onMessageStart`, then per block `onBlockStart`, `onContentDelta`*, `onBlockComplete`; then `onMessageComplete`.
 * On failure `onError` is the last call. Before a retry `onRetry` is called, and the next attempt starts again
 * with `onMessageStart`. Block indices count from 0 within a message. A tool the provider runs itself is reported
 * with `onServerTool` between the blocks it came between.
 * All methods are optional.
 */
export interface Receiver {
  onMessageStart?(role: Role): void;
  onBlockStart?(type: ContentBlockType, index: number, meta?: BlockMeta): void;
  /** Raw text fragments: text, thinking, or tool-input JSON. */
  onContentDelta?(index: number, delta: string): void;
  onBlockComplete?(index: number, block: ContentBlock): void;
  onMessageComplete?(message: Message): void;
  onError?(error: ProviderError): void;
  onRetry?(notice: RetryNotice): void;
  /** The provider ran one of its own tools (a web search) at this point of the message. */
  onServerTool?(use: ServerToolUse): void;
}

/** A tool as offered to a provider. `schema` is the JSON Schema as exact, deterministic JSON text (sent verbatim). */
export interface ToolSpec {
  name: string;
  description: string;
  schema: string;
}

export interface StreamOptions {
  tools?: readonly ToolSpec[];
  signal?: AbortSignal;
  /**
   * The system prompt, sent before the conversation's own system messages (OpenAI: a first system message;
   * Anthropic: the start of `system`). Kept out of the conversation, so a saved session holds none.
   */
  system?: string;
}

export type StepResult = { ok: true; message: Message } | { ok: false; error: ProviderError };

/**
 * A wire API. `streamStep` streams exactly one assistant message for the conversation and never throws:
 * failures are `{ ok: false }` after `receiver.onError`. It does not modify the conversation; the caller
 * appends the message, so nothing half-streamed is ever committed.
 */
export interface Provider {
  readonly name: string;
  readonly model: string;
  streamStep(conversation: Conversation, receiver: Receiver, options?: StreamOptions): Promise<StepResult>;
}

/** How much the model thinks before answering (Anthropic): a budget in tokens, `"adaptive"` or `"off"`. */
export type ThinkingSetting = number | "adaptive" | "off";

/**
 * Bedrock's AWS settings, resolved from the environment and the config file (the files of `~/.aws` are the
 * provider's to read, when a request needs them).
 */
export interface AwsSettings {
  /** The region set by the config file or `AWS_REGION`/`AWS_DEFAULT_REGION`; absent: the profile's, else us-east-1. */
  region?: string;
  /** The access keys of `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY` (no profile chosen); absent: the SDK's chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** The profile chosen (`providers.bedrock.profile`, `AWS_PROFILE`) and where, for messages; absent: `default`. */
  profile?: { name: string; source: string };
  /** True when no base URL was set: the endpoint is the region's, `https://bedrock-runtime.REGION.amazonaws.com`. */
  regionalEndpoint?: boolean;
}

/** Vertex AI's settings, resolved from the environment and the config file (the credentials are the provider's to find). */
export interface VertexSettings {
  /** The Google Cloud project and where it was set; absent: the credentials' own (a key's `project_id`...). */
  project?: { name: string; source: string };
  /** `global` (host `aiplatform.googleapis.com`) or a region such as `us-east5` (`us-east5-aiplatform.googleapis.com`). */
  region: string;
  /** True when no base URL was set: the host is the region's. */
  regionalEndpoint: boolean;
}

/**
 * Everything needed to build a provider, already resolved from env, config file and flags (src/config does that).
 * Providers read only this; they never look at the environment themselves.
 */
export interface ProviderSettings {
  /** "openai" (any OpenAI-compatible endpoint), "openai-responses", "gemini", "anthropic", "bedrock", "google-vertex", "google-vertex-anthropic", "copilot", "chatgpt", or "replay". */
  provider: string;
  model: string;
  /** e.g. https://api.openai.com/v1 (OpenAI: `{baseUrl}/chat/completions`), https://api.anthropic.com (`{baseUrl}/v1/messages`). */
  baseUrl: string;
  apiKey?: string;
  /** Bedrock: where the region and the credentials that sign requests (SigV4) come from when there is no Bedrock API key. */
  aws?: AwsSettings;
  /** Vertex AI (`google-vertex`, `google-vertex-anthropic`): the project and region; the token is Google's ADC. */
  vertex?: VertexSettings;
  /** Retries of retryable errors (SPEC §3 rule 7); 0 disables. Default 3. */
  maxRetries: number;
  /** A stream with no bytes for this long is a retryable `stalled` error. */
  stallTimeoutMs: number;
  /**
   * No response head this long after the request is sent is a retryable `stalled` error too (a server that
   * accepts and never answers). The shorter of this and `stallTimeoutMs` applies; absent = `stallTimeoutMs`.
   */
  firstByteTimeoutMs?: number;
  /** Upper bound on output tokens (Anthropic requires one; sent to OpenAI-compatible endpoints only when set). */
  maxTokens?: number;
  /**
   * Anthropic thinking: a number is manual extended thinking with that budget in tokens (`{"type": "enabled",
   * "budget_tokens": N}`, at least 1024 and below max tokens); `"adaptive"` lets the model decide
   * (`{"type": "adaptive"}`, Claude 4.6 and later); `"off"` sends `{"type": "disabled"}`; undefined sends
   * nothing, so the model's own default applies. Other providers ignore it.
   */
  thinking?: ThinkingSetting;
  /**
   * Anthropic, budget thinking with tools: send `anthropic-beta: interleaved-thinking-2025-05-14`, so Claude 4
   * models can think between tool calls. Default true; adaptive thinking interleaves without it.
   */
  interleavedThinking?: boolean;
  /**
   * Anthropic and OpenAI Responses: let the model search the web on the provider's side (`"search": {"backend":
   * "provider"}`, docs/std-tools.md): the request offers the provider's web search tool instead of awl's `search`
   * tool, and the answer's citations are kept on its text. Other providers ignore it.
   */
  webSearch?: boolean;
  /** Per-endpoint quirks for OpenAI-compatible servers, each a named boolean/string the user can override. */
  compat?: Record<string, unknown>;
  /**
   * Extra request headers (a provider profile's `headers` in the config file), e.g. OpenRouter's `HTTP-Referer`
   * and `X-Title`; they replace awl's own of the same name (`user-agent` too), and one set to "" is not sent.
   */
  headers?: Record<string, string>;
  /**
   * copilot, chatgpt: where the sign-in (`awl login`) is kept, and, for awl's own tests only
   * (`AWL_LOGIN_TEST_SERVER`), a local server standing in for the vendors' fixed addresses (docs/providers.md).
   */
  login?: { dataDir: string; fileOnly?: boolean; testServer?: string };
  /** Replay provider: the JSON Lines script to play. */
  replayFile?: string;
  /**
   * Told about something worth a line in a log but not an error (an event type the provider does not know and
   * ignored, once per type). Absent: such notes are dropped.
   */
  onNotice?: (text: string) => void;
}
