/**
 * The session's status on one dimmed line: provider and model, the context used (yellow past 70 %, red past
 * 90 %), tokens in and out, cache reads, the cost when known ("cost unknown" when not, never guessed), what is
 * still starting (MCP servers) and the permission mode when it is not the default (`bypass` loud). Drawn under
 * the prompt (line-editor.ts `footer`) and, while a turn runs, under its live output (turn-pane.ts); cut to the
 * terminal's width by display columns.
 */
import { costText, tokensText, type MeterSnapshot } from "../../usage/meter.js";
import { fitWidth } from "./width.js";

/** What the status line shows. */
export interface StatusFacts {
  snapshot: MeterSnapshot;
  /** The permission mode (absent or `default`: not shown). */
  mode?: string;
  /** Names of what is still starting (MCP servers). */
  starting?: readonly string[];
  /** The model's checklist in short (ui/todo-list.ts), e.g. `todo 2/5 · fix the parser`. */
  todo?: string;
}

const BYPASS = "BYPASS: no permission checks";

/** The status on one line of at most `columns - 1` columns. */
export function statusLine(facts: StatusFacts, columns: number, color: boolean): string {
  const { snapshot, mode, starting = [], todo } = facts;
  const usage = snapshot.session.usage;
  const parts: string[] = [];
  // The mode first: it changes what a prompt may do, so it is never the part cut off.
  const shownMode = mode === "bypass" ? BYPASS : mode && mode !== "default" ? `mode ${mode}` : "";
  if (shownMode) parts.push(shownMode);
  parts.push(`${snapshot.provider} ${snapshot.model}`);
  let context = "";
  if (snapshot.context_percent !== undefined) {
    context = `context ${snapshot.context_percent}% of ${tokensText(snapshot.context_window)}`;
    parts.push(context);
  }
  parts.push(`↑${tokensText(usage.input_tokens)} ↓${tokensText(usage.output_tokens)}`);
  if (usage.cache_read_input_tokens) parts.push(`cache read ${tokensText(usage.cache_read_input_tokens)}`);
  if (snapshot.session.calls > 0) parts.push(costText(snapshot.session) === "unknown" ? "cost unknown" : costText(snapshot.session));
  if (starting.length > 0) parts.push(`starting ${starting.join(", ")}`);
  // Last: the item's words are what the width cuts first.
  if (todo) parts.push(todo);
  const text = fitWidth(parts.join(" · "), Math.max(10, columns - 1));
  if (!color) return text;
  let shown = text;
  const percent = snapshot.context_percent ?? 0;
  const alarm = percent > 90 ? "31" : percent > 70 ? "33" : "";
  if (alarm && context && shown.includes(context)) shown = shown.replace(context, `\x1b[22;${alarm}m${context}\x1b[39;2m`);
  if (mode === "bypass" && shown.includes(BYPASS)) shown = shown.replace(BYPASS, `\x1b[22;1;97;41m${BYPASS}\x1b[0;2m`);
  else if (shownMode && shown.includes(shownMode)) shown = shown.replace(shownMode, `\x1b[22;33m${shownMode}\x1b[39;2m`);
  return `\x1b[2m${shown}\x1b[22m`;
}
