/**
 * `awl rewind [SESSION] [--to N --code] [--yes] [--overwrite-changed]` (docs/checkpoints.md):
 * without `--to`, the session's prompts with what restoring each would change; with it, the restore, shown first
 * and done with `--yes`. SESSION defaults to the latest session of this directory.
 */
import { parseArgs } from "node:util";
import { CheckpointStore } from "../../checkpoints/store.js";
import { planRestore, type RestorePlan } from "../../checkpoints/restore.js";
import { baselineOf, checkpointBefore, rewindCode } from "../../checkpoints/rewind.js";
import { isPrompt, promptNumber } from "../../checkpoints/prompts.js";
import { loadConfig } from "../../config/layers.js";
import type { CheckpointSettings } from "../checkpoint-hook.js";
import type { ScanLimits } from "../../checkpoints/scan.js";
import type { Message } from "../../model/message.js";
import { acquireSessionLock } from "../../session/lock.js";
import { lockFile } from "../../session/paths.js";
import { SessionStore } from "../../session/store.js";
import { formatUserMessage } from "../error-text.js";
import { EXIT } from "../exit-codes.js";
import { oneLine } from "../output/tool-block.js";

export const REWIND_USAGE = `usage: awl rewind [SESSION] [--to N --code] [--yes] [--overwrite-changed]

Without --to: lists the session's prompts, each with the files added, modified and deleted since.
With --to N --code: restores the files as they were before prompt N. The changes are shown; --yes makes them.
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
    if (values.code || values.yes) return usage("--to N says which prompt to rewind to");
    listPrompts(store, id.value, root, prompts);
    return EXIT.ok;
  }
  const n = Number(values.to);
  if (!Number.isInteger(n) || n < 1 || n > prompts.length) return usage(`--to takes a prompt number from 1 to ${prompts.length} (got "${values.to}")`);
  if (!values.code) return usage("say what to restore: --code");
  const lock = acquireSessionLock(lockFile(sessions.dir, id.value), id.value);
  if (!lock.ok) return failure(lock.error.message, "rewind once that awl has ended");
  try {
    return await restoreCode(store, id.value, root, n, promptNumber(session.transcript), values.yes === true, values["overwrite-changed"] === true);
  } finally {
    lock.value.release();
  }
}

async function restoreCode(store: CheckpointStore, session: string, root: string, n: number, current: number, yes: boolean, overwrite: boolean): Promise<number> {
  const limits = await limitsOf(root);
  const outcome = rewindCode(store, { session, root, prompt: n, current, overwriteChanged: overwrite, dryRun: !yes, limits });
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
    out.write("Nothing was changed: run again with --yes to restore.\n");
    return EXIT.ok;
  }
  printPlan(plan, root, n, "did");
  return EXIT.ok;
}

function printPlan(plan: RestorePlan, root: string, n: number, mood: "would" | "did"): void {
  const lines = [`${mood === "did" ? "Restored" : "Restoring"} ${root} to before prompt ${n}${mood === "did" ? "" : " would"}:`];
  for (const path of plan.modified) lines.push(`  restore  ${path}`);
  for (const path of plan.added) lines.push(`  create   ${path}`);
  for (const path of plan.deleted) lines.push(`  delete   ${path}`);
  process.stdout.write(lines.join("\n") + "\n");
}

function listPrompts(store: CheckpointStore, session: string, root: string, prompts: readonly Message[]): void {
  const records = store.records(session);
  const newest = baselineOf(records, root);
  const lines: string[] = [];
  prompts.forEach((prompt, i) => {
    const text = oneLine(prompt.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" "), 60);
    const target = checkpointBefore(records, i + 1, root);
    let changes = "no checkpoint";
    if (typeof target !== "string" && newest?.tree) {
      try {
        const plan = planRestore(store.objects, target.tree!, newest.tree, undefined);
        // What changed since the prompt is the restore read backwards: what it deletes was added, and so on.
        changes = `${plan.deleted.length} added, ${plan.modified.length} modified, ${plan.added.length} deleted since`;
      } catch {
        changes = "checkpoint damaged";
      }
    } else if (typeof target === "string" && target.includes("incomplete")) changes = "checkpoint incomplete";
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
