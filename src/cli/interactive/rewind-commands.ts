/**
 * `/rewind` (and Esc Esc on an empty prompt), `/tree` and `/fork` of the interactive mode (docs/checkpoints.md,
 * docs/sessions.md "Branches"): choose a prompt, see what restoring the files would change, restore the files and/or
 * the conversation (a new branch; the prompt comes back into the editor); list the branches and switch between them;
 * copy the branch in use into a new session. The work is the runtime's (src/runtime/session-branching.ts); this is the dialogue.
 */
import type { RewindMode, RewindOutcome } from "../../agent-session/branching.js";
import { branchPromptLabel, nothingToRestore, restoreLines, rewindPointLabel } from "../../ui/output/rewind-text.js";
import { showResumedSession } from "../session-history.js";
import type { SlashCommand, SlashContext } from "./slash-command.js";

type Choice = RewindMode | "cancel";

/** The rewind dialogue: which prompt, what to restore, confirmation of files changed outside awl. */
export async function rewindDialog(context: SlashContext, to?: number): Promise<void> {
  const { runtime, print, pick } = context;
  const branching = runtime.branching;
  if (!branching) return print("rewind needs a saved session (not with --no-session)");
  const points = await branching.rewindPoints();
  if (points.length === 0) return print("nothing to rewind to: no prompt has been sent in this conversation yet");
  let number = to;
  if (number === undefined) {
    number = await pick(
      "rewind to before which prompt",
      points.map((p, i) => ({ value: p.number, label: rewindPointLabel(p), search: p.text, current: i === points.length - 1 })),
      { currentLabel: "" },
    );
    if (number === undefined) return;
  }
  const point = points[number - 1];
  if (!point) return print(`there is no prompt ${number} (this branch has ${points.length})`);
  // What restoring the files would change, before anything is chosen.
  let conflicts: string[] = [];
  const codeOk = point.checkpoint !== undefined;
  if (codeOk) {
    const planned = await branching.rewind({ to: number, mode: "code", dryRun: true });
    if (planned.status === "error") return print(`cannot rewind: ${planned.message}`);
    const files = planned.files!;
    if (nothingToRestore(files)) print(`the files are as they were before prompt ${number}`);
    else print(restoreLines(`restoring the files to before prompt ${number} would:`, files).join("\n"));
    if (planned.status === "conflicts") {
      conflicts = planned.conflicts;
      print(`changed outside awl since its last checkpoint (restoring would overwrite them): ${conflicts.join(", ")}`);
    }
  } else print(`the files cannot be restored to before prompt ${number}: ${point.unavailable ?? "no checkpoint"}`);
  const options: { value: Choice; label: string }[] = [
    ...(codeOk ? [{ value: "both" as const, label: "restore code and conversation" }] : []),
    { value: "conversation", label: "restore the conversation only (a new branch; the old one is kept)" },
    ...(codeOk ? [{ value: "code" as const, label: "restore the code only" }] : []),
    { value: "cancel", label: "cancel" },
  ];
  const mode = await pick(`rewind to before prompt ${number}: ${point.text.split("\n")[0]}`, options);
  if (mode === undefined || mode === "cancel") return print("nothing was restored");
  let overwrite = false;
  if (mode !== "conversation" && conflicts.length > 0) {
    const answer = await pick(`${conflicts.join(", ")} changed outside awl: overwrite ${conflicts.length === 1 ? "it" : "them"}?`, [
      { value: "no", label: "no: restore nothing" },
      { value: "yes", label: "yes: overwrite (the current content is kept in a checkpoint)" },
    ]);
    if (answer !== "yes") return print("nothing was restored");
    overwrite = true;
  }
  const outcome = await branching.rewind({ to: number, mode, overwriteChanged: overwrite });
  report(context, outcome, number, mode);
}

function report(context: SlashContext, outcome: RewindOutcome, number: number, mode: RewindMode): void {
  const { print } = context;
  if (outcome.status === "error") return print(`cannot rewind: ${outcome.message}`);
  if (outcome.status === "conflicts") return print(`nothing was restored: changed outside awl since its last checkpoint: ${outcome.conflicts.join(", ")}`);
  const lines: string[] = [];
  if (outcome.files) lines.push(...(nothingToRestore(outcome.files) ? [`the files were already as before prompt ${number}`] : restoreLines(`restored the files to before prompt ${number}:`, outcome.files)));
  if (mode !== "code") {
    lines.push(`the conversation is back to before prompt ${number} (a new branch; the old one is kept: /tree shows both); the prompt is in the editor`);
    context.setPrompt(outcome.prompt);
  }
  print(lines.join("\n"));
}

export const rewindCommand: SlashCommand = {
  name: "rewind",
  args: "[N]",
  summary: "restore the files and/or the conversation as they were before a prompt (Esc Esc on an empty prompt too)",
  run: (args, context) => {
    const text = args.trim();
    if (text !== "" && !/^[1-9]\d*$/.test(text)) return context.print("usage: /rewind [N] (N: a prompt's number; none: choose from a list)");
    return rewindDialog(context, text === "" ? undefined : Number(text));
  },
};

export const treeCommand: SlashCommand = {
  name: "tree",
  summary: "the branches of this session (every prompt, its time); choose one to continue it",
  run: async (_args, context) => {
    const { runtime, print, pick } = context;
    const branching = runtime.branching;
    if (!branching) return print("branches need a saved session (not with --no-session)");
    const rows = branching.branches();
    if (rows.length === 0) return print("no prompts in this session yet");
    const chosen = await pick(
      "the session's branches",
      rows.map((row) => ({ value: row, label: branchPromptLabel(row), search: row.text, current: row.inUse })),
      { currentLabel: "◀ in use" },
    );
    if (!chosen) return;
    if (chosen.onBranchInUse) return print("that prompt is on the branch in use");
    const switched = branching.switchBranch(chosen.leaf);
    if (!switched.ok) return print(`cannot switch: ${switched.message}`);
    // The branch switched to is drawn as a resumed session is: its answers as they were.
    await showResumedSession(runtime, context.sink);
  },
};

export const forkCommand: SlashCommand = {
  name: "fork",
  summary: "copy this conversation (the branch in use) into a new session and go on there; the original stays",
  run: (_args, { runtime, print }) => {
    const branching = runtime.branching;
    if (!branching) return print("forking needs a saved session (not with --no-session)");
    const forked = branching.fork();
    if (!forked.ok) return print(`cannot fork: ${forked.message}`);
    print(`forked: this conversation goes on as session ${forked.id}; ${forked.from} stays as it was (/resume ${forked.from} goes back)`);
  },
};
