/**
 * Every conversation saved as it goes (SPEC §7): a turn hook that starts a session file at the first turn,
 * records each message and tool snapshot through a SessionRecorder, and fsyncs at every turn end.
 * `-c` / `-r ID` / `/resume` open an existing session instead and put its conversation in the runtime.
 *
 * A new session that the model never answered, its last turn having failed (a 401, a refused connection), is
 * removed when it is left (awl ends, `/clear`, `/new`, `/resume`), so it never clutters `awl sessions` or the
 * picker; meanwhile it is saved like any other (a kill mid-turn leaves it to resume). A resumed session, or one
 * named ahead (`awl acp`), is always kept.
 */
import type { TurnReceiver, TurnResult } from "../agent/agent.js";
import type { ConfigResult } from "../config/errors.js";
import type { Message } from "../model/message.js";
import type { CompactionOutcome } from "../agent/context-layer.js";
import { SessionRecorder } from "../session/recorder.js";
import type { LoadedSession } from "../session/reader.js";
import { SessionStore } from "../session/store.js";
import { forkSession } from "../session/fork.js";
import type { FlagValues } from "./flags.js";
import { runSecrets } from "./run-secrets.js";
import { onSecretsAnnounced } from "../util/late-secrets.js";
import type { Runtime, RuntimeOptions, TurnHook } from "./runtime.js";

export class SessionHook implements TurnHook {
  private recorder: SessionRecorder | undefined;
  /** The provider and model the file last recorded, so a `/model` switch is saved as a `model` entry. */
  private recorded: { provider: string; model: string } | undefined;
  /** The session `-c` / `-r` opened, until the interactive mode has shown its history. */
  resumed: LoadedSession | undefined;
  /** The id the next new session file gets (`awl acp` names a session before its first prompt creates the file). */
  nextId: string | undefined;
  /** The current file is new (created by this run, not named ahead), the model has not answered in it, and its last turn failed. */
  private unanswered = { created: false, answered: false, failed: false };

  constructor(
    readonly store: SessionStore,
    private readonly cwd: string,
    private readonly warn: (text: string) => void,
  ) {}

  /** The current session's id, once there is one. */
  get id(): string | undefined {
    return this.recorder?.writer.id;
  }

  /** The id of the session as it will stay saved: none while it is one that would be removed (see above). */
  sessionId(): string | undefined {
    return this.kept ? this.id : undefined;
  }

  /** Whether the current session's file stays once it is left. */
  private get kept(): boolean {
    const { created, answered, failed } = this.unanswered;
    return !(created && !answered && failed);
  }

  /** Closes the current session's file, removing it when it is not {@link kept}. */
  private leave(): void {
    const id = this.id;
    this.recorder?.close();
    this.recorder = undefined;
    if (id === undefined || this.kept) return;
    const removed = this.store.remove(id);
    if (!removed.ok) this.warn(removed.error.message);
  }

  /** Opens a saved session to continue it; its conversation becomes `runtime.conversation`. */
  resume(idOrPrefix: string, runtime: Runtime): ConfigResult<LoadedSession> {
    const target = this.store.resolve(idOrPrefix);
    // Resuming the session this awl writes: its lock is ours, so close it first rather than be refused.
    if (target.ok && target.value === this.id) {
      this.recorder?.close();
      this.recorder = undefined;
    }
    const opened = this.store.open(idOrPrefix);
    if (!opened.ok) {
      const kind = opened.error.kind;
      const hint =
        kind === "not_found" || kind === "ambiguous"
          ? "start a new conversation without -c or -r"
          : kind === "locked"
            ? "nothing was sent and the session is left as it is"
            : "the file is named above";
      return { ok: false, error: { message: opened.error.message, hint } };
    }
    this.leave();
    const { session, writer } = opened.value;
    this.unanswered = { created: false, answered: false, failed: false };
    this.recorder = new SessionRecorder(writer, (e) => this.warn(`${e.message} (the conversation goes on; it is saved once writing works again)`));
    this.recorded = { provider: session.provider, model: session.model };
    for (const warning of session.warnings) this.warn(warning.message);
    runtime.conversation = session.conversation;
    runtime.usage.resumed(session.calls);
    this.resumed = session;
    return { ok: true, value: session };
  }

  /**
   * Makes the branch ending at message `leaf` the one in use (null: back to before the first prompt): saved as a
   * `branch` entry (docs/sessions.md, "Branches"), nothing deleted; the conversation is read again from the file.
   */
  switchBranch(leaf: string | null, reason: "rewind" | "switch", runtime: Runtime): ConfigResult<LoadedSession> {
    const id = this.id;
    if (!this.recorder || id === undefined) return { ok: false, error: { message: "this conversation is not saved, so it has no branches", hint: "branches need a saved session" } };
    const saved = this.recorder.writer.appendBranch(leaf, reason);
    if (!saved.ok) return { ok: false, error: { message: saved.error.message, hint: "the conversation is left as it was" } };
    return this.resume(id, runtime);
  }

  /** The id a message of the current session was saved with. */
  messageId(message: Message): string | undefined {
    return this.recorder?.writer.idOf(message);
  }

  /** Leaves the current session as it is saved; the next prompt starts a new file (`/clear`, `/new`). */
  startNew(): void {
    this.leave();
    this.recorded = undefined;
    this.resumed = undefined;
  }

  onTurnStart(prompt: Message, runtime: Runtime): void {
    const { provider, model } = runtime.providerSettings;
    if (!this.recorder) {
      const created = this.store.create({ cwd: this.cwd, provider, model, ...(this.nextId !== undefined && { id: this.nextId }) });
      if (!created.ok) {
        this.warn(`${created.error.message}; this conversation is not saved`);
        return;
      }
      this.recorder = new SessionRecorder(created.value, (e) => this.warn(`${e.message} (the conversation goes on; it is saved once writing works again)`));
      this.recorded = { provider, model };
      this.unanswered = { created: this.nextId === undefined, answered: false, failed: false };
    }
    if (this.recorded?.provider !== provider || this.recorded.model !== model) {
      this.store.addSecrets([runtime.providerSettings.apiKey]);
      this.recorder.event({ type: "model", provider, model });
      this.recorded = { provider, model };
    }
    this.recorder.message(prompt);
  }

  wrapReceiver(receiver: TurnReceiver): TurnReceiver {
    return this.recorder ? this.recorder.wrap(receiver) : receiver;
  }

  /** A compaction: its summary call's tokens (a `usage` entry) and what it changed (a `compaction` entry). */
  onCompaction(outcome: CompactionOutcome): void {
    const usage = outcome.usage;
    if (usage && usage.input_tokens + usage.output_tokens > 0) this.recorder?.event({ type: "usage", usage, reason: "compaction" });
    const applied = outcome.applied;
    if (!applied) return;
    const { summary, replaces, pruned, reason, tokens_before, tokens_after } = applied;
    this.recorder?.event({ type: "compaction", ...(summary !== undefined ? { summary } : {}), replaces, ...(pruned?.length ? { pruned: [...pruned] } : {}), reason, tokens_before, tokens_after });
  }

  onMessageAppended(message: Message): void {
    if (message.role === "assistant") this.unanswered.answered = true;
  }

  onTurnEnd(result: TurnResult): void {
    this.unanswered.failed = result.stop_reason === "error";
    this.recorder?.endTurn();
  }

  close(): void {
    this.leave();
  }
}

/**
 * The session hook of a run that saves its conversation (not `--no-session`: build-runtime.ts), having opened the
 * session `-c` or `-r` names. A session that cannot be found or read is a usage error: awl does not silently start
 * a new one.
 */
export function setupSessions(options: RuntimeOptions, runtime: Runtime): ConfigResult<SessionHook> {
  const flags: FlagValues = options.cli.flags;
  if (flags.continue && flags.resume !== undefined) return usage("-c continues the latest session and -r a given one: use one of them");
  const cwd = options.cwd ?? process.cwd();
  const store = new SessionStore(undefined, { secrets: runSecrets(options) });
  // A sign-in's token refreshed mid-session is scrubbed from the file too.
  onSecretsAnnounced(store, "addSecrets");
  const hook = new SessionHook(store, cwd, options.warn);
  // `-r` alone: the interactive mode shows the picker (needs a terminal); print mode needs an id.
  let target = flags.resume === "" ? undefined : flags.resume;
  if (flags.resume === "" && (flags.print || options.cli.outputFormat !== "text" || !process.stdin.isTTY || !process.stdout.isTTY)) {
    return usage("-r without an id picks a session from a list, which needs a terminal", "pass an id: awl -r ID (awl sessions lists them)");
  }
  if (flags.continue) {
    const latest = hook.store.latest(cwd);
    if (!latest.ok) {
      const hint =
        latest.error.kind === "not_found"
          ? "start a new conversation without -c, or pick one with -r (`awl sessions` lists them)"
          : "this is the latest session of this directory; fix or move that file, or pick another with -r (`awl sessions` lists them)";
      return usage(latest.error.message, hint);
    }
    target = latest.value;
  }
  if (target !== undefined && (flags.fork || flags["fork-session"])) {
    const forked = forkSession(hook.store, target);
    if (!forked.ok) return usage(forked.error.message, "awl sessions lists the sessions");
    target = forked.value;
  } else if (flags.fork || flags["fork-session"]) {
    return usage("--fork copies a saved session: name it with -r ID or -c");
  }
  if (target !== undefined) {
    const resumed = hook.resume(target, runtime);
    if (!resumed.ok) return resumed;
  }
  return { ok: true, value: hook };
}

function usage(message: string, hint = "see awl --help"): ConfigResult<never> {
  return { ok: false, error: { message, hint } };
}
