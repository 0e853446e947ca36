/**
 * A prompt command's template made into the prompt sent (docs/commands.md): `$ARGUMENTS` is the text after the
 * command's name, `$1`…`$9` its words (quotes group words), `` !`command` `` the output of running the command
 * (through the bash tool and its permission check), and `@path` attaches the file. Only the template's own
 * `` !`…` `` and `@…` act: arguments are filled in inside them (`` !`git log $1` ``, `@src/$1`) but the
 * arguments' own text is never run or read. A command that is denied stops the whole expansion.
 */

/** What the caller provides: running a shell command, and attaching files. */
export interface ExpandContext {
  /** Runs `command` through the bash tool's permission check; `denied` when it may not run. */
  runShell(command: string): Promise<{ ok: true; output: string } | { ok: false; message: string }>;
}

export type Expansion = { ok: true; text: string; files: string[] } | { ok: false; message: string };

const TOKEN = /!`([^`\n]+)`|(^|\s)@((?:\\ |[^\s])+)/g;

/** The template with its arguments filled in, commands run and files named (`files`, to attach). */
export async function expandCommand(template: string, args: string, context: ExpandContext): Promise<Expansion> {
  const words = splitWords(args);
  const fill = (text: string): string =>
    text.replace(/\$(ARGUMENTS|[1-9])/g, (_all, key: string) => (key === "ARGUMENTS" ? args.trim() : (words[Number(key) - 1] ?? "")));
  const out: string[] = [];
  const files: string[] = [];
  let at = 0;
  for (const match of template.matchAll(TOKEN)) {
    out.push(fill(template.slice(at, match.index)));
    at = match.index + match[0].length;
    if (match[1] !== undefined) {
      const command = fill(match[1]);
      const ran = await context.runShell(command);
      if (!ran.ok) return { ok: false, message: `the command's !\`${command}\` was not run: ${ran.message}` };
      out.push(ran.output.replace(/\n+$/, ""));
    } else {
      const path = fill(match[3]!);
      files.push(path.replace(/\\ /g, " ").replace(/[,.;:!?)]+$/, ""));
      out.push(`${match[2]}@${path}`);
    }
  }
  out.push(fill(template.slice(at)));
  if (!/\$ARGUMENTS|\$[1-9]/.test(template) && args.trim() !== "") out.push(`\n\n${args.trim()}`);
  return { ok: true, text: out.join("").trim(), files };
}

/** Words of the arguments; "…" and '…' group words. */
export function splitWords(args: string): string[] {
  const words: string[] = [];
  for (const match of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}
