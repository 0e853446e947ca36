/**
 * The trust questions at the start of the interactive mode (docs/permissions.md, "Trust"): asked once for a
 * folder that brings code or widening settings of its own, before any of it loads; and again for a trusted
 * folder whose content changed since, showing each change, before any of the new content loads. `y` trusts the
 * folder (or the change) and remembers it; `n` (or Esc, Ctrl-C, Ctrl-D) starts awl without it.
 */
import { wrapText } from "../output/wrap-text.js";
import { TerminalInput } from "../editor/terminal-input.js";

/**
 * Asks on the process's terminal; resolves true when the user trusts the folder. `brings` says which of the two
 * the folder has: code (extensions) and settings that widen the rules.
 */
export function askFolderTrust(folder: string, parts: readonly string[], brings: { code: boolean; widening: boolean }): Promise<boolean> {
  const what = [brings.code && "code that runs as you", brings.widening && "rules that widen what tools may do"].filter(Boolean).join(", and ");
  return askYesNo(
    `This folder brings its own ${parts.join(", ")}: ${what}.\n` + `Trust ${folder}?  y trust it (remembered; /permissions untrust revokes it) · n not now\n`,
    "trusted\n",
    "not trusted: starting without them\n",
  );
}

/** Asks about a trusted folder's changed content (one line per change); resolves true when the user trusts it. */
export function askChangedTrust(folder: string, changes: readonly string[]): Promise<boolean> {
  return askYesNo(
    `${folder} changed since you trusted it:\n${changes.map((line) => `  ${line}\n`).join("")}` +
      `Trust the new content?  y trust it (remembered) · n not now (what was there before still loads)\n`,
    "trusted\n",
    "not trusted: starting without the new content\n",
  );
}

function askYesNo(question: string, yes: string, no: string): Promise<boolean> {
  const out = process.stdout;
  out.write(wrapText(question, ((out.isTTY && out.columns) || 80) - 1));
  return new Promise((resolve) => {
    const done = (trusted: boolean): void => {
      input.stop();
      out.write(trusted ? yes : no);
      resolve(trusted);
    };
    const input = new TerminalInput(process.stdin, out, {
      onKey: (event) => {
        if (event.kind === "text" && /^y$/i.test(event.text)) return done(true);
        if (event.kind === "text" && /^n$/i.test(event.text)) return done(false);
        if (event.kind === "key" && ["escape", "interrupt", "eof"].includes(event.name)) return done(false);
      },
      onEnd: () => done(false),
    });
    input.start();
  });
}
