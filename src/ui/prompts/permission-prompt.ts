/**
 * The interactive permission question (docs/permissions.md, "Asking"): the tool, the exact arguments (the text
 * an edit or write puts in, line by line) and the answers, each a key:
 *
 *   y  allow once           s  allow for this session      a  always allow (then p: project, u: user)
 *   n  deny                 t  deny and tell the model why (a line of text, then Enter)
 *   Esc  deny and stop the turn                          d  the whole diff (an edit or write longer than shown)
 *
 * An `edit` or `write` shows the change it makes to the file as a diff (ui/approval-diff.ts).
 * One question at a time (the permission layer queues them); the keys go here while one is open.
 */
import type { AskAnswer, AskRequest } from "../../permissions/tool-set.js";
import { showControls } from "../safe-text.js";
import { questionAnswer, TypedLine } from "./question-input.js";
import { wrapText } from "../output/wrap-text.js";
import type { KeyEvent } from "../editor/key-decoder.js";

/** Where the question is drawn: whole lines. */
export interface PromptOutput {
  write(text: string): void;
  /** Ends the current line if something is on it. */
  endLine(): void;
  color: boolean;
}

/** How many lines of an argument's text are shown before "… N more lines". */
const SHOWN_LINES = 20;

/** How many lines of a diff are shown before "… N more lines (d shows them)". */
const SHOWN_DIFF_LINES = 40;

type Stage = { kind: "choose" } | { kind: "scope" } | { kind: "reason"; line: TypedLine };

export class PermissionPrompt {
  private open: { request: AskRequest; stage: Stage; diff: string[] | undefined; resolve: (answer: AskAnswer) => void } | undefined;

  constructor(
    private readonly out: PromptOutput,
    /** The terminal's width: the question wraps at words within it. */
    private readonly columns: () => number = () => 80,
  ) {}

  /** A question is waiting for its answer: keys belong to it. */
  get active(): boolean {
    return this.open !== undefined;
  }

  /** Shows the question and resolves with the answer; a cancelled turn (`signal`) closes it as a cancel. */
  async ask(request: AskRequest, signal: AbortSignal): Promise<AskAnswer> {
    const diff = await changeDiff(request, this.out.color);
    const on = { aborted: () => this.line("(cancelled)"), settled: () => (this.open = undefined) };
    return questionAnswer<AskAnswer>(signal, { kind: "cancel" }, on, (done) => {
      this.open = { request, stage: { kind: "choose" }, diff, resolve: done };
      this.out.endLine();
      this.out.write(wrapText(questionText(request, this.out.color, diff), this.columns()));
    });
  }

  /** A key while a question is open. */
  handle(event: KeyEvent): void {
    const open = this.open;
    if (!open) return;
    const key = event.kind === "key" ? event.name : undefined;
    const text = event.kind === "text" ? event.text : event.kind === "paste" ? event.text : "";
    if (key === "escape" || key === "interrupt") {
      this.line("denied; the turn stops");
      return open.resolve({ kind: "cancel" });
    }
    const stage = open.stage;
    if (stage.kind === "reason") {
      const message = stage.line.handle(key, text);
      if (message !== undefined) open.resolve(message ? { kind: "deny", message } : { kind: "deny" });
      return;
    }
    const choice = text.toLowerCase();
    if (stage.kind === "scope") {
      if (choice === "u" || (choice === "p" && open.request.projectRulesCount)) {
        const scope = choice === "p" ? "project" : "user";
        this.line(`always allowed: ${rulesText(open.request.rules)} (saved in the ${scope} config)`);
        return open.resolve({ kind: "allow_always", scope });
      }
      return;
    }
    switch (choice) {
      case "d":
        if (!open.diff || open.diff.length <= SHOWN_DIFF_LINES) return;
        this.out.endLine();
        this.out.write(`${open.diff.slice(SHOWN_DIFF_LINES).join("\n")}\n${ANSWERS}\n`);
        return;
      case "y":
      case "1":
        this.line("allowed once");
        return open.resolve({ kind: "allow_once" });
      case "s":
      case "2":
        this.line(`allowed for this session: ${rulesText(open.request.rules)}`);
        return open.resolve({ kind: "allow_session" });
      case "a":
      case "3":
        open.stage = { kind: "scope" };
        return this.out.write(
          open.request.projectRulesCount
            ? "save to  p project (.awl/config.json)  u user (~/.config/awl/config.json): "
            : "save to  u user (~/.config/awl/config.json; this folder is not trusted, so its own rules would not count): ",
        );
      case "n":
      case "4":
        this.line("denied");
        return open.resolve({ kind: "deny" });
      case "t":
      case "5":
        open.stage = { kind: "reason", line: new TypedLine((s) => this.out.write(s)) };
        return this.out.write("tell the model why (Enter sends): ");
    }
  }

  private line(text: string): void {
    this.out.endLine();
    this.out.write(this.out.color ? `\x1b[2m${text}\x1b[22m\n` : `${text}\n`);
  }
}

/**
 * The question's text: what runs, its arguments, then the answers. Everything in it that the model or an
 * extension chose (the tool's name, the reason holding a path or command, argument names and values, the rules
 * offered) shows its control and invisible characters as escapes (`\e`, `\r`): what is shown is what runs.
 */
export function questionText(request: AskRequest, color: boolean, diff?: readonly string[]): string {
  const bold = (s: string): string => (color ? `\x1b[1m${s}\x1b[22m` : s);
  const who = request.call.agent === undefined ? "" : ` (sub-agent ${showControls(request.call.agent)})`;
  const lines = [`${bold(`? ${showControls(request.tool.name)}`)}${who} wants to run (${showControls(request.decision.reason)}):`];
  const input = request.input;
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
      // With a diff, the texts it is made of are not shown again.
      if (diff && DIFF_SOURCES.has(key)) continue;
      lines.push(...argumentLines(key, value, request.tool.name));
    }
  } else {
    lines.push(`  ${showControls(request.call.input)}`);
  }
  if (diff) {
    lines.push(...diff.slice(0, SHOWN_DIFF_LINES));
    if (diff.length > SHOWN_DIFF_LINES) lines.push(`  … ${diff.length - SHOWN_DIFF_LINES} more lines (d shows them)`);
  }
  lines.push(
    ANSWERS,
    request.rules.length > 0 ? `  (s and a add: ${rulesText(request.rules)})` : "  (no rule can allow this: s and a allow it once)",
  );
  return `${lines.join("\n")}\n`;
}

const ANSWERS = `  y allow once · s allow for this session · a always allow · n deny · t deny and say why · Esc deny and stop`;

/** The arguments a diff shows the effect of. */
const DIFF_SOURCES = new Set(["old_string", "new_string", "content"]);

/** The diff of what an `edit` or `write` would change in its file, or undefined (another tool, or it does not fit the file). */
async function changeDiff(request: AskRequest, color: boolean): Promise<string[] | undefined> {
  if (request.tool.name !== "edit" && request.tool.name !== "write") return undefined;
  // Loaded on the first such question: the diff library costs nothing to a session that never asks one.
  const { diffLines, fileChangeOf } = await import("../approval-diff.js");
  const resolved = request.decision.input?.path;
  const change = fileChangeOf(request.tool.name, request.input, typeof resolved === "string" ? resolved : undefined, process.cwd());
  if (!change) return undefined;
  const lines = diffLines(change, color);
  return change.created ? [`  (a new file)`, ...lines] : lines;
}

/** One argument: a short value on its line; a text of several lines below it, `+` marking what a write puts in. */
function argumentLines(key: string, value: unknown, tool: string): string[] {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const safe = (s: string): string => showControls(s, "\t");
  const name = showControls(key);
  if (!text.includes("\n")) return [`  ${name}: ${safe(text)}`];
  const marker = /^(old|old_string|old_text)$/.test(key) ? "- " : /^(new|new_string|new_text|content)$/.test(key) || tool === "write" ? "+ " : "  ";
  const body = text.split("\n");
  const shown = body.slice(0, SHOWN_LINES).map((l) => `    ${marker}${safe(l)}`);
  if (body.length > SHOWN_LINES) shown.push(`    … ${body.length - SHOWN_LINES} more lines`);
  return [`  ${name}:`, ...shown];
}

/** The rules offered, as shown. */
function rulesText(rules: readonly string[]): string {
  return rules.map((rule) => showControls(rule)).join(", ");
}
