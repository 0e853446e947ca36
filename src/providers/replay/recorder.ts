/**
 * `--record FILE`: appends each assistant message of a live session to a replay script
 * (docs/replay-format.md), so the session can be played back offline with `--provider replay`. The file is
 * created private (0600), and every key the run knows is replaced by `[REDACTED]` in it, as in session files.
 */
import { appendFileSync, statSync } from "node:fs";
import type { Message } from "../../model/message.js";
import { SecretScrubber } from "../../util/secrets.js";
import { messageToJSON } from "../../model/json.js";
import { REPLAY_FORMAT_VERSION } from "./script.js";

export class ReplayRecorder {
  private started = false;

  constructor(
    readonly path: string,
    private readonly scrub: SecretScrubber = new SecretScrubber(),
  ) {}

  /** Appends one assistant message (other roles are not scripted). Returns a message on failure; never throws. */
  record(message: Message): string | undefined {
    if (message.role !== "assistant") return undefined;
    try {
      if (!this.started) {
        if (isEmptyOrMissing(this.path)) appendFileSync(this.path, line({ awl_replay: REPLAY_FORMAT_VERSION }), { mode: 0o600 });
        this.started = true;
      }
      appendFileSync(this.path, this.scrub.json(line(messageToJSON(message))), { mode: 0o600 });
      return undefined;
    } catch (e) {
      return `cannot write the recording ${this.path} (${(e as NodeJS.ErrnoException).code ?? String(e)})`;
    }
  }
}

function isEmptyOrMissing(path: string): boolean {
  try {
    return statSync(path).size === 0;
  } catch {
    return true;
  }
}

/** One JSON line; U+2028/U+2029 escaped so line-oriented readers never split a message. */
function line(value: unknown): string {
  return JSON.stringify(value).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029") + "\n";
}
