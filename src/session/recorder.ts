/**
 * Saves a conversation as it goes: wrap the agent's receiver, and each message is appended as it is added to
 * the conversation, each tool's result, snapshot, title, details and summary when the tool ends, the tokens of
 * a model call that failed or was cancelled (a `usage` entry), and the file is fsynced when the turn ends. A
 * failed write never stops the conversation: it is kept (the writer queues it) and reported once through `onError`.
 */
import type { TurnReceiver } from "../agent/agent.js";
import type { ToolResultBlock } from "../model/blocks.js";
import type { Message } from "../model/message.js";
import type { ProviderError } from "../providers/errors.js";
import type { RetryNotice } from "../providers/types.js";
import type { ToolCall, ToolOutcome, ToolProgress } from "../tools/types.js";
import type { SessionError, SessionResult } from "./errors.js";
import type { SessionEvent, ToolSnapshot } from "./format.js";
import type { SessionWriter } from "./writer.js";

export class SessionRecorder {
  /** The last `ctx:show` state of each running tool, saved when it ends if its outcome carries none. */
  private readonly shown = new Map<string, unknown>();
  /** The last `ctx:title` text of each running tool, saved when it ends: a resumed block shows the title seen live. */
  private readonly titles = new Map<string, string>();
  private failing = false;

  constructor(
    readonly writer: SessionWriter,
    /** Called on the first failed write after a success (not on every one while the disk stays full). */
    private readonly onError: (error: SessionError) => void = () => {},
  ) {}

  /** Saves a message the caller adds itself (the user's prompt). */
  message(message: Message): void {
    this.check(this.writer.appendMessage(message));
  }

  /** Saves a model or provider change, a usage or a compaction. */
  event(event: SessionEvent): void {
    this.check(this.writer.appendEvent(event));
  }

  /** A receiver that saves what the turn produces and passes every call on to `inner`. */
  wrap(inner: TurnReceiver = {}): TurnReceiver {
    const own: TurnReceiver = {
      onMessageAppended: (message: Message) => {
        this.message(message);
        inner.onMessageAppended?.(message);
      },
      onToolProgress: (call: ToolCall, update: ToolProgress) => {
        if (update.kind === "show") this.shown.set(call.id, update.state);
        else if (update.kind === "title") this.titles.set(call.id, update.text);
        inner.onToolProgress?.(call, update);
      },
      onToolEnd: (call, outcome, result) => {
        this.tool(call, outcome, result);
        inner.onToolEnd?.(call, outcome, result);
      },
      onRetry: (notice: RetryNotice) => {
        this.spent(notice.error, "retry");
        inner.onRetry?.(notice);
      },
      onError: (error: ProviderError) => {
        this.spent(error, error.kind === "aborted" ? "cancelled" : "error");
        inner.onError?.(error);
      },
    };
    // Every other receiver method (and any added later) goes straight to `inner`, called on it.
    return new Proxy(inner, {
      get(target, key, receiver) {
        if (key in own) return own[key as keyof TurnReceiver];
        const value: unknown = Reflect.get(target, key, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
      has: (target, key) => key in own || key in target,
    });
  }

  /** The turn ended: fsync everything appended so far. */
  endTurn(): SessionResult<void> {
    const result = this.writer.endTurn();
    this.check(result);
    return result;
  }

  close(): SessionResult<void> {
    const result = this.writer.close();
    this.check(result);
    return result;
  }

  /** Tokens a failed or cancelled attempt was billed for (no message carries them): a `usage` entry, so session totals count them. */
  private spent(error: ProviderError, reason: "retry" | "error" | "cancelled"): void {
    const usage = error.usage;
    if (!usage) return;
    const tokens = usage.input_tokens + usage.output_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
    if (tokens > 0) this.event({ type: "usage", usage, reason });
  }

  /** Saved as soon as the tool ends, with its result: a kill before the batch's results message loses nothing finished. */
  private tool(call: ToolCall, outcome: ToolOutcome, result: ToolResultBlock): void {
    const saved: ToolSnapshot = {};
    const shown = this.shown.get(call.id);
    const title = this.titles.get(call.id);
    this.shown.delete(call.id);
    this.titles.delete(call.id);
    if (outcome.status === "result") {
      if (outcome.snapshot !== undefined) saved.snapshot = outcome.snapshot;
      if (outcome.details !== undefined) saved.details = outcome.details;
      if (outcome.summary !== undefined) saved.summary = outcome.summary;
    }
    if (saved.snapshot === undefined && shown !== undefined) saved.snapshot = shown;
    if (title !== undefined) saved.title = title;
    this.check(this.writer.appendToolEvent(call.id, saved, result));
  }

  private check(result: SessionResult<void>): void {
    if (result.ok) this.failing = false;
    else if (!this.failing) {
      this.failing = true;
      this.onError(result.error);
    }
  }
}
