/**
 * Whether a redirection writes to a file (the reading of a command marks it `writes`, which no command pattern
 * allows): `> f`, `>> f`, `&> f`, `<> f`, `>&f` do; `<`, `<&`, a closed descriptor (`>&-`), a duplicated one
 * (`2>&1`) and `/dev/null`, `/dev/stdout`, `/dev/stderr` do not; a target known only when it runs does.
 */
import type { Word } from "./shell-words.js";

/** Redirection targets that are no file. */
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/** `op` as written (`>`, `2>`'s `>`, `>&`…), `target` the word after it. */
export function redirectWrites(op: string, target: Word): boolean {
  if (op === "<" || op === "<&" || op.endsWith("-")) return false;
  if (target.open) return true;
  if (op === ">&" && /^(?:[0-9]+|-)$/.test(target.text)) return false;
  return !HARMLESS_TARGETS.has(target.text);
}
