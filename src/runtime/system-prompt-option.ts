/**
 * `--system-prompt TEXT|@FILE` and `--append-system-prompt TEXT|@FILE`, or the config file's `system_prompt` and
 * `append_system_prompt` (flags win): the text, or the file's text for `@FILE`. A flag's FILE is relative to the
 * working directory; a config file's to the folder it configures (the user file's folder, the project folder), so
 * the user file's `"@prompt.md"` works in every project. `~/` is the home folder in both.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ConfigResult } from "../config/errors.js";
import { where, type LoadedConfig, type SourcedValue } from "../config/layers.js";
import { expandHome, isInside, realPathOf } from "../permissions/paths.js";
import { os } from "../util/lazy-builtin.js";

export interface SystemPromptChoice {
  replace?: string;
  append?: string;
}

type Flags = { "system-prompt"?: string; "append-system-prompt"?: string };

/** What the flags and config files ask of the system prompt (the schema checked the files' values); a missing `@FILE` is an error. */
export function systemPromptChoice(flags: Flags, config: LoadedConfig | undefined, cwd: string): ConfigResult<SystemPromptChoice> {
  const choice: SystemPromptChoice = {};
  for (const [key, flag, field] of [
    ["system_prompt", "system-prompt", "replace"],
    ["append_system_prompt", "append-system-prompt", "append"],
  ] as const) {
    const fromFlag = flags[flag];
    const fromFile = fromFlag === undefined ? config?.get<string>(key) : undefined;
    const text =
      fromFlag !== undefined
        ? textOf(fromFlag, { base: cwd, where: `--${flag}` })
        : fromFile
          ? textOf(fromFile.value, fileBase(fromFile, cwd, config!.trusted))
          : undefined;
    if (text === undefined) continue;
    if (!text.ok) return text;
    choice[field] = text.value;
  }
  return { ok: true, value: choice };
}

interface Base {
  /** Where a relative FILE starts. */
  base: string;
  /** What names the value in a message: the flag, or FILE:LINE: key. */
  where: string;
  /** An untrusted project file's FILE must lie inside this folder (its text goes to the model with every request). */
  confinedTo?: string;
}

function fileBase(found: SourcedValue<string>, cwd: string, trusted: boolean): Base {
  const at = `${where(found.source)}: ${found.source.key}`;
  if (found.source.scope === "user") return { base: dirname(found.source.file), where: at };
  return { base: cwd, where: at, ...(!trusted && { confinedTo: cwd }) };
}

function textOf(value: string, { base, where, confinedTo }: Base): ConfigResult<string> {
  if (!value.startsWith("@")) return { ok: true, value };
  const name = value.slice(1);
  const path = resolve(base, expandHome(name, os().homedir()));
  const fail = (why: string, hint: string): ConfigResult<string> => ({ ok: false, error: { message: `${where}: cannot read ${path}: ${why}`, hint } });
  try {
    if (confinedTo !== undefined && !isInside(realPathOf(path), realPathOf(confinedTo)))
      return fail("it is outside this project, and the folder is not trusted", "trust the folder (awl permissions trust), or set the key in your user config file");
    return { ok: true, value: readFileSync(path, "utf8") };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "it does not exist" : code === "EISDIR" ? "it is a folder" : (code ?? String(e));
    return fail(why, "give the text itself, or @ and a file to read it from");
  }
}
