/** The interactive mode's prompt history (prompt-history.ts) for this run: where, how big, scrubbed of what. */
import { awlDataDir } from "../../config/paths.js";
import type { Message } from "../../model/message.js";
import { SecretScrubber } from "../../util/secrets.js";
import { runSecrets } from "../../runtime/run-secrets.js";
import type { Runtime } from "../../runtime/runtime.js";
import { isUnansweredNote } from "../../runtime/unanswered-note.js";
import { DEFAULT_HISTORY_SIZE, PromptHistory } from "../../ui/editor/prompt-history.js";

/** Shapes of well-known API keys and tokens: redacted from the history even when awl does not know them. */
const TOKEN_SHAPES = [
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
];

/** The history of this run, or undefined when the config's `history_size` is 0. */
export function openHistory(runtime: Runtime): PromptHistory | undefined {
  const size = runtime.options.config?.get<number>("history_size")?.value ?? DEFAULT_HISTORY_SIZE;
  if (size === 0) return undefined;
  const scrubber = new SecretScrubber(runSecrets(runtime.options));
  const history = new PromptHistory({
    file: PromptHistory.fileIn(awlDataDir(process.env)),
    cwd: process.cwd(),
    size,
    scrub: (text) => TOKEN_SHAPES.reduce((t, shape) => t.replace(shape, "[REDACTED]"), scrubber.text(text)),
    warn: runtime.options.warn,
  });
  history.load();
  return history;
}

/** The prompts the user typed in a conversation (not tool results, not awl's notes), oldest first. */
export function userPrompts(messages: readonly Message[]): string[] {
  const prompts: string[] = [];
  for (const message of messages) {
    if (message.role !== "user") continue;
    const text = message.content
      .filter((b) => b.type === "text" && !isUnansweredNote(b.text))
      .map((b) => (b.type === "text" ? b.text : ""))
      .join("\n");
    if (text.trim() !== "") prompts.push(text);
  }
  return prompts;
}
