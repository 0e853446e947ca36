/**
 * How the permission engine reads a shell command (shell-commands.ts: bash read with tree-sitter's grammar, every
 * simple command at every depth), loaded the first time a command is checked (`loadShellParser`), grammar and
 * reader together: a run that checks no command loads neither. Until then a command cannot be read: it is
 * unresolved, as a command the parser could not read is (a deny rule denies it; otherwise it is asked about,
 * never allowed).
 */
import { loadBashGrammar } from "./shell-parser.js";
import type { ParsedCommand } from "./shell-commands.js";

let reader: typeof import("./shell-commands.js") | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the shell parser and the reading of commands (once; later calls return the same promise). Never rejects:
 * a grammar that cannot load leaves every command unresolvable, which asks or denies, never allows. Await it
 * before `PermissionEngine.decide` reads a command.
 */
export function loadShellParser(): Promise<void> {
  loading ??= Promise.all([import("./shell-commands.js"), loadBashGrammar()]).then(([commands]) => {
    reader = commands;
  });
  return loading;
}

/** What `command` runs (shell-commands.ts `parseCommand`); unresolved until `loadShellParser` has resolved. */
export function readCommand(command: string): ParsedCommand {
  return reader ? reader.parseCommand(command) : { commands: [], checked: [{ text: "", open: true }], unresolved: "the shell parser is not loaded yet" };
}

/** Text awl refuses to check at all: a NUL (bash would cut the command there) or text that is not valid UTF-8. */
export function invalidCommandText(command: string): string | undefined {
  if (command.includes("\0")) return "the command holds a NUL byte";
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\uFFFD/.test(command)) return "the command is not valid UTF-8";
  return undefined;
}
