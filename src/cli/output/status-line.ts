/**
 * The status shown beside the spinner while awl waits for the model: provider and model, the session's tokens in
 * and out, cache reads, the context used (yellow past 70 %, red past 90 %) and the cost when known. Part of one
 * dimmed line, cut to the terminal's width.
 */
import { costText, tokensText, type MeterSnapshot } from "../../usage/meter.js";
import { fitWidth } from "./width.js";

/** `lead` (the spinner and its label) and the status, on one line of at most `columns - 1` columns. */
export function statusLine(lead: string, snapshot: MeterSnapshot, columns: number, color: boolean): string {
  const usage = snapshot.session.usage;
  const parts = [lead, `${snapshot.provider} ${snapshot.model}`, `↑${tokensText(usage.input_tokens)} ↓${tokensText(usage.output_tokens)}`];
  if (usage.cache_read_input_tokens) parts.push(`cache read ${tokensText(usage.cache_read_input_tokens)}`);
  let context = "";
  if (snapshot.context_percent !== undefined) {
    context = `context ${snapshot.context_percent}% of ${tokensText(snapshot.context_window)}`;
    parts.push(context);
  }
  if (snapshot.session.calls > 0) parts.push(costText(snapshot.session) === "unknown" ? "cost unknown" : costText(snapshot.session));
  const text = fitWidth(parts.join(" · "), Math.max(10, columns - 1));
  if (!color) return text;
  const percent = snapshot.context_percent ?? 0;
  const alarm = percent > 90 ? "31" : percent > 70 ? "33" : "";
  const shown = alarm && context && text.includes(context) ? text.replace(context, `\x1b[22;${alarm}m${context}\x1b[39;2m`) : text;
  return `\x1b[2m${shown}\x1b[22m`;
}
