/**
 * The trust question at the start of the interactive mode (docs/permissions.md, "Trust"): asked once for a
 * folder that brings code or widening settings of its own, before any of it loads. `y` trusts the folder and
 * remembers it in the user config; `n` (or Esc, Ctrl-C, Ctrl-D) starts awl without what the folder brings.
 */
import { wrapText } from "../output/wrap-text.js";
import { TerminalInput } from "./terminal-input.js";

/**
 * Asks on the process's terminal; resolves true when the user trusts the folder. `brings` says which of the two
 * the folder has: code (extensions) and settings that widen the rules.
 */
export function askFolderTrust(folder: string, parts: readonly string[], brings: { code: boolean; widening: boolean }): Promise<boolean> {
  const out = process.stdout;
  const what = [brings.code && "code that runs as you", brings.widening && "rules that widen what tools may do"].filter(Boolean).join(", and ");
  const columns = (out.isTTY && out.columns) || 80;
  out.write(
    wrapText(
      `This folder brings its own ${parts.join(", ")}: ${what}.\n` + `Trust ${folder}?  y trust it (remembered; /permissions untrust revokes it) · n not now\n`,
      columns - 1,
    ),
  );
  return new Promise((resolve) => {
    const done = (trusted: boolean): void => {
      input.stop();
      out.write(trusted ? "trusted\n" : "not trusted: starting without them\n");
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
