/**
 * `awl rewind [SESSION] [--to N --code|--conversation|--both] [--yes] [--overwrite-changed]` (docs/checkpoints.md):
 * without `--to`, the session's prompts with what restoring each would change; with it, the restore, shown first
 * and done with `--yes`. SESSION defaults to the latest session of this directory.
 */
import { parseArgs } from "node:util";
import { CheckpointStore } from "../../checkpoints/store.js";
import { planRestore, type RestorePlan } from "../../checkpoints/restore.js";
import { baselineOf, checkpointBefore, rewindCode } from "../../checkpoints/rewind.js";
import { isPrompt, promptNumber } from "../../checkpoints/prompts.js";
import { loadConfig } from "../../config/layers.js";
import type { CheckpointSettings } from "../../runtime/checkpoint-hook.js";
import type { ScanLimits } from "../../checkpoints/scan.js";
import type { Message } from "../../model/message.js";
import { acquireSessionLock } from "../../session/lock.js";
import { lockFile } from "../../session/paths.js";
import { SessionStore } from "../../session/store.js";
import { formatUserMessage } from "../../ui/error-text.js";
import { EXIT } from "../exit-codes.js";
import { oneLine } from "../../ui/output/tool-block.js";
import { changeCountsText, restoreLines } from "../../ui/output/rewind-text.js";
import { promptText } from "../../runtime/session-branching.js";

export const REWIND_USAGE = `usage: awl rewind [SESSION] [--to N (--code | --conversation | --both)] [--yes] [--overwrite-changed]

Without --to: lists the session's prompts, each with the files added, modified and deleted since.
With --to N: restores the files as they were before prompt N (--code), the conversation to just before it
(--conversation: a new branch, the old one is kept), or both. The changes are shown; --yes makes them.
A file changed outside awl since its last checkpoint is named and left alone: nothing is restored unless
--overwrite-changed is given too. SESSION is an id or a unique prefix (default: the latest session of this
directory). Reference: docs/checkpoints.md.
`;

export async function run(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(REWIND_USAGE);
    return EXIT.ok;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        to: { type: "string" },
        code: { type: "boolean" },
        conversation: { type: "boolean" },
        both: { type: "boolean" },
        yes: { type: "boolean", short: "y" },
        "overwrite-changed": { type: "boolean" },
      },
    });
  } catch (e) {
    return usage(e instanceof Error ? e.message.split(".")[0]! : String(e));
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) return usage(`one session at a time (got ${positionals.join(", ")})`);
  const sessions = new SessionStore();
  const id = positionals[0] !== undefined ? sessions.resolve(positionals[0]) : sessions.latest(process.cwd());
  if (!id.ok) return failure(id.error.message, "awl sessions lists them");
  const loaded = sessions.load(id.value);
  if (!loaded.ok) return failure(loaded.error.message, "awl sessions lists them");
  const session = loaded.value;
  const prompts = session.transcript.filter(isPrompt);
  const root = session.header.cwd;
  const store = new CheckpointStore();
  if (values.to === undefined) {
    if (values.code || values.conversation || values.both || values.yes) return usage("--to N says which prompt to rewind to");
    listPrompts(store, id.value, root, prompts, session.ids);
    return EXIT.ok;
  }
  const n = Number(values.to);
  if (!Number.isInteger(n) || n < 1 || n > prompts.length) return usage(`--to takes a prompt number from 1 to ${prompts.length} (got "${values.to}")`);
  if ([values.code, values.conversation, values.both].filter(Boolean).length !== 1) return usage("say what to restore: --code, --conversation or --both");
  const prompt = prompts[n - 1]!;
  const message = session.ids.get(prompt);
  const code = values.code || values.both;
  const conversation = values.conversation || values.both;
  if (!values.yes) {
    if (code) {
      const status = await withLock(sessions, id.value, () => restoreCode(store, id.value, root, n, message, promptNumber(session.transcript), false, values["overwrite-changed"] === true));
      if (status !== EXIT.ok) return status;
    }
    if (conversation) process.stdout.write(`The conversation would go back to just before prompt ${n} (a new branch; the current one is kept).\n`);
    process.stdout.write("Nothing was changed: run again with --yes to restore.\n");
    return EXIT.ok;
  }
  if (code) {
    const status = await withLock(sessions, id.value, () => restoreCode(store, id.value, root, n, message, promptNumber(session.transcript), true, values["overwrite-changed"] === true));
    if (status !== EXIT.ok) return status;
  }
  if (conversation) {
    const opened = sessions.open(id.value);
    if (!opened.ok) return failure(opened.error.message, "rewind once that awl has ended");
    const { writer } = opened.value;
    const node = message === undefined ? undefined : opened.value.session.tree.get(message);
    const saved = writer.appendBranch(node?.parent ?? null, "rewind");
    const closed = writer.close();
    if (!saved.ok) return failure(saved.error.message, "the conversation is left as it was");
    if (!closed.ok) return failure(closed.error.message, "the conversation is left as it was");
    process.stdout.write(`The conversation is back to just before prompt ${n} (a new branch; the old one is kept: /tree shows both). The prompt was:\n${promptText(prompt)}\n`);
  }
  return EXIT.ok;
}

/** Runs `work` holding the session's lock (no other awl appends to it meanwhile). */
async function withLock(sessions: SessionStore, id: string, work: () => Promise<number>): Promise<number> {
  const lock = acquireSessionLock(lockFile(sessions.dir, id), id);
  if (!lock.ok) return failure(lock.error.message, "rewind once that awl has ended");
  try {
    return await work();
  } finally {
    lock.value.release();
  }
}

async function restoreCode(
  store: CheckpointStore,
  session: string,
  root: string,
  n: number,
  message: string | undefined,
  current: number,
  yes: boolean,
  overwrite: boolean,
): Promise<number> {
  const limits = await limitsOf(root);
  const outcome = rewindCode(store, { session, root, prompt: n, ...(message !== undefined && { message }), current, overwriteChanged: overwrite, dryRun: !yes, limits });
  if (outcome.finishedEarlier) process.stderr.write("awl: finished a rewind that had been interrupted\n");
  if (outcome.status === "error") return failure(outcome.message, "awl rewind SESSION lists the prompts that have checkpoints");
  const { plan } = outcome;
  const out = process.stdout;
  if (plan.ops.length === 0) {
    out.write(`The files of ${root} are already as they were before prompt ${n}.\n`);
    return EXIT.ok;
  }
  if (outcome.status === "conflicts") {
    printPlan(plan, root, n, "would");
    return failure(
      `${plan.conflicts.length === 1 ? "this file was" : "these files were"} changed outside awl since its last checkpoint, and restoring would overwrite ${plan.conflicts.length === 1 ? "it" : "them"}: ${plan.conflicts.join(", ")}; nothing was restored`,
      "keep a copy, then run again with --overwrite-changed to restore them too",
    );
  }
  if (outcome.status === "planned") {
    printPlan(plan, root, n, "would");
    return EXIT.ok;
  }
  printPlan(plan, root, n, "did");
  return EXIT.ok;
}

function printPlan(plan: RestorePlan, root: string, n: number, mood: "would" | "did"): void {
  const heading = `${mood === "did" ? "Restored" : "Restoring"} ${root} to before prompt ${n}${mood === "did" ? "" : " would"}:`;
  process.stdout.write(restoreLines(heading, { restore: plan.modified, create: plan.added, delete: plan.deleted }).join("\n") + "\n");
}

function listPrompts(store: CheckpointStore, session: string, root: string, prompts: readonly Message[], ids: ReadonlyMap<Message, string>): void {
  const records = store.records(session);
  const newest = baselineOf(records, root);
  const lines: string[] = [];
  prompts.forEach((prompt, i) => {
    const text = oneLine(prompt.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" "), 60);
    const target = checkpointBefore(records, i + 1, root, ids.get(prompt));
    let changes = "no checkpoint";
    if (typeof target !== "string" && newest?.tree) {
      try {
        const plan = planRestore(store.objects, target.tree!, newest.tree, undefined);
        // What changed since the prompt is the restore read backwards: what it deletes was added, and so on.
        changes = changeCountsText({ added: plan.deleted.length, modified: plan.modified.length, deleted: plan.added.length });
      } catch {
        changes = "checkpoint damaged";
      }
    } else if (typeof target === "string" && target.includes("incomplete")) changes = "checkpoint incomplete";
    else if (typeof target === "string" && target.includes("changed no files")) changes = changeCountsText({ added: 0, modified: 0, deleted: 0 });
    lines.push(`${String(i + 1).padStart(3)}  ${changes.padEnd(36)}  ${text}`);
  });
  process.stdout.write(lines.length > 0 ? lines.join("\n") + "\n" : "This session has no prompts.\n");
}

/** The config's checkpoint limits (those the checkpoints were taken with), read in the session's folder. */
async function limitsOf(root: string): Promise<Partial<ScanLimits>> {
  const config = await loadConfig({ env: process.env, cwd: root });
  const settings = config.ok ? (config.value.get<CheckpointSettings>("checkpoints")?.value ?? {}) : {};
  return {
    ...(settings.max_files !== undefined && { maxFiles: settings.max_files }),
    ...(settings.max_file_size !== undefined && { maxFileSize: settings.max_file_size }),
  };
}

function usage(message: string): number {
  process.stderr.write(formatUserMessage({ message, hint: "awl rewind --help" }));
  return EXIT.usage;
}

function failure(message: string, hint: string): number {
  process.stderr.write(formatUserMessage({ message, hint }));
  return EXIT.error;
}
