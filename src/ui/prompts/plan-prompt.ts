/**
 * The interactive question a plan asks (docs/permissions.md, "Plan mode"): the model's plan drawn as Markdown,
 * then the answers, each a key:
 *
 *   a  yes, and accept edits (mode accept-edits)      y  yes, ask before each edit (mode default)
 *   e  edit the plan first ($VISUAL or $EDITOR)      n  no, keep planning (a line saying what to change, then Enter)
 *   Esc  stop the turn (plan mode stays)
 *
 * One question at a time; the keys go here while it is open. Everything drawn from the plan is made safe first:
 * the model wrote it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PlanAnswer } from "../../permissions/exit-plan.js";
import type { KeyEvent } from "../editor/key-decoder.js";
import type { renderMarkdown } from "../markdown/render-markdown.js";
import { wrapText } from "../output/wrap-text.js";
import { stripControls } from "../safe-text.js";
import { questionAnswer, TypedLine } from "./question-input.js";

/** Where the question is drawn: whole lines. */
export interface PlanPromptOutput {
  write(text: string): void;
  /** Ends the current line if something is on it. */
  endLine(): void;
  color: boolean;
}

/** What the prompt needs of its terminal besides drawing. */
export interface PlanPromptTerminal {
  /** Columns: the plan wraps within them. */
  columns(): number;
  /**
   * Runs `edit` with the terminal given back as it was (raw mode off, keys not read), for an editor program;
   * raw mode and the keys come back after it.
   */
  handOver(edit: () => void): void;
}

/** The Markdown renderer (marked), loaded with the first plan: the prompt is drawn without it (issue 30). */
let render: typeof renderMarkdown | undefined;

const ANSWERS = "  a yes, and accept edits · y yes, ask before each edit · e edit the plan first · n no, keep planning (say why) · Esc stop";

export class PlanPrompt {
  private open: { plan: string; edited: boolean; reason: TypedLine | undefined; resolve: (answer: PlanAnswer) => void } | undefined;

  constructor(
    private readonly out: PlanPromptOutput,
    private readonly terminal: PlanPromptTerminal,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** A plan waits for its answer: keys belong to it. */
  get active(): boolean {
    return this.open !== undefined;
  }

  /** Shows `plan` and resolves with the answer; a cancelled turn (`signal`) closes it as a cancel. */
  async review(plan: string, signal: AbortSignal): Promise<PlanAnswer> {
    render ??= (await import("../markdown/render-markdown.js")).renderMarkdown;
    const on = { aborted: () => this.line("(cancelled)"), settled: () => (this.open = undefined) };
    return questionAnswer<PlanAnswer>(signal, { kind: "cancel" }, on, (done) => {
      this.open = { plan, edited: false, reason: undefined, resolve: done };
      this.show(plan, "The model proposes this plan:");
    });
  }

  /** A key while a plan is open. */
  handle(event: KeyEvent): void {
    const open = this.open;
    if (!open) return;
    const key = event.kind === "key" ? event.name : undefined;
    const text = event.kind === "text" || event.kind === "paste" ? event.text : "";
    if (key === "escape" || key === "interrupt") {
      this.line("the turn stops; plan mode stays");
      return open.resolve({ kind: "cancel" });
    }
    if (open.reason) {
      const message = open.reason.handle(key, text);
      if (message === undefined) return;
      this.line("rejected: the model keeps planning");
      return open.resolve(message ? { kind: "reject", message } : { kind: "reject" });
    }
    const plan = open.edited ? { plan: open.plan } : {};
    switch (text.toLowerCase()) {
      case "a":
      case "1":
        this.line("approved: mode accept-edits");
        return open.resolve({ kind: "approve", mode: "accept-edits", ...plan });
      case "y":
      case "2":
        this.line("approved: mode default (edits ask)");
        return open.resolve({ kind: "approve", mode: "default", ...plan });
      case "e":
      case "3":
        return this.edit();
      case "n":
      case "4":
        open.reason = new TypedLine((s) => this.out.write(s));
        return this.out.write("what should change? (Enter sends; empty: just no): ");
    }
  }

  /** `e`: the plan in the user's editor; what they save is the plan from now on, asked about again. */
  private edit(): void {
    const open = this.open!;
    const editor = this.env.VISUAL || this.env.EDITOR;
    if (!editor) return this.line("no editor: set VISUAL or EDITOR to edit the plan");
    const folder = mkdtempSync(join(tmpdir(), "awl-plan-"));
    const file = join(folder, "plan.md");
    try {
      writeFileSync(file, open.plan);
      let failed: string | undefined;
      this.terminal.handOver(() => {
        // Through the shell: EDITOR may hold arguments ("code --wait").
        const ran = spawnSync("/bin/sh", ["-c", `${editor} "$1"`, "sh", file], { stdio: "inherit" });
        if (ran.error || ran.status !== 0) failed = ran.error?.message ?? `it exited with ${ran.status ?? ran.signal}`;
      });
      if (failed) return this.line(`the editor (${editor}) failed: ${failed}; the plan is unchanged`);
      const text = readFileSync(file, "utf8");
      if (text.trim() === "") return this.line("the edited plan is empty; the plan is unchanged");
      open.edited = text !== open.plan || open.edited;
      open.plan = text;
      this.show(text, "The plan as you edited it:");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }

  private show(plan: string, title: string): void {
    const bold = (s: string): string => (this.out.color ? `\x1b[1m${s}\x1b[22m` : s);
    const width = this.terminal.columns() - 2;
    const body = render!(stripControls(plan), { width, color: this.out.color }).map((l) => `  ${l}`);
    this.out.endLine();
    this.out.write(`${[bold(`? ${title}`), ...body, "", bold("Approve the plan?"), wrapText(ANSWERS, width)].join("\n")}\n`);
  }

  private line(text: string): void {
    this.out.endLine();
    this.out.write(this.out.color ? `\x1b[2m${text}\x1b[22m\n` : `${text}\n`);
  }
}
