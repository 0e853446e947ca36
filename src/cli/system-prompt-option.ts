/**
 * `--system-prompt TEXT|@FILE` and `--append-system-prompt TEXT|@FILE`, or the config file's `system_prompt` and
 * `append_system_prompt` (flags win): the text, or the file's text for `@FILE` (relative to the working directory).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { ConfigResult } from "../config/errors.js";
import { where, type LoadedConfig } from "../config/layers.js";

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
    const value = fromFlag ?? fromFile?.value;
    if (value === undefined) continue;
    const text = textOf(value, cwd, fromFile ? `${where(fromFile.source)}: ${key}` : `--${flag}`);
    if (!text.ok) return text;
    choice[field] = text.value;
  }
  return { ok: true, value: choice };
}

function textOf(value: string, cwd: string, where: string): ConfigResult<string> {
  if (!value.startsWith("@")) return { ok: true, value };
  const path = resolve(cwd, value.slice(1));
  try {
    return { ok: true, value: readFileSync(path, "utf8") };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "it does not exist" : code === "EISDIR" ? "it is a folder" : (code ?? String(e));
    return { ok: false, error: { message: `${where}: cannot read ${path}: ${why}`, hint: "give the text itself, or @ and a file to read it from" } };
  }
}
