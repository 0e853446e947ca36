/**
 * Extensions switched off and on (`awl extensions disable NAME` / `enable NAME`, SPEC §4 "Capabilities"): the
 * `extensions` key of the user's config file (`$XDG_CONFIG_HOME/awl/config.json`) and of the project's
 * `.awl/config.json`, the project's entry for a name over the user's, except that a project never switches on what
 * the user switched off (a cloned repository is input, not the user's choice: docs/permissions.md, "Trust"):
 *
 * ```json
 * { "extensions": { "weather": { "enabled": false }, "std.ls": { "enabled": false } } }
 * ```
 *
 * A disabled extension's code never runs and its tools are not offered. Reading is tolerant (a hot reload never
 * fails on a file being edited: what cannot be used is a problem to report); writing goes through the config
 * writer (the rest of the file kept, checked against the schema, replaced atomically).
 */
import { readFileSync } from "node:fs";
import { configFilePath, projectConfigPath, type ConfigScope } from "../config/config-file.js";
import type { ConfigResult } from "../config/errors.js";

/** The config files that may switch extensions, lowest precedence first. */
export function enablementFiles(cwd: string, env: NodeJS.ProcessEnv): { user: string; project: string } {
  return { user: configFilePath(env), project: projectConfigPath(cwd) };
}

export interface Enablement {
  /** Disabled extensions, each with the file that disables it. */
  disabled: Map<string, string>;
  /** Files that could not be used, with what is wrong (the extensions stay as they are). */
  problems: string[];
  /** Project entries not followed, each saying why (`awl permissions` lists them; they are in `problems` too). */
  ignored: string[];
}

/** Reads both files; a missing file switches nothing. Never throws. */
export function readEnablement(cwd: string, env: NodeJS.ProcessEnv): Enablement {
  const files = enablementFiles(cwd, env);
  const decided = new Map<string, { enabled: boolean; file: string }>();
  const problems: string[] = [];
  const ignored: string[] = [];
  for (const file of [files.user, files.project]) {
    const read = readObject(file);
    if ("problem" in read) {
      if (read.problem) problems.push(read.problem);
      continue;
    }
    const entries = read.value.extensions;
    if (entries === undefined) continue;
    if (typeof entries !== "object" || entries === null || Array.isArray(entries)) {
      problems.push(`${file}: key "extensions" must be an object like {"weather": {"enabled": false}} (ignored)`);
      continue;
    }
    for (const [name, entry] of Object.entries(entries as Record<string, unknown>)) {
      const enabled = (entry as { enabled?: unknown } | null)?.enabled;
      if (typeof enabled !== "boolean") {
        problems.push(`${file}: extensions."${name}".enabled must be true or false (ignored)`);
        continue;
      }
      const before = decided.get(name);
      if (enabled && before && !before.enabled && before.file === files.user && file === files.project) {
        ignored.push(`${file}: extensions."${name}".enabled true (ignored: ${files.user} switches it off, and a project can only switch extensions off)`);
        continue;
      }
      decided.set(name, { enabled, file });
    }
  }
  const disabled = new Map<string, string>();
  for (const [name, { enabled, file }] of decided) if (!enabled) disabled.set(name, file);
  return { disabled, problems: [...problems, ...ignored], ignored };
}

/** Sets `extensions.NAME.enabled` in the config file of `scope`, keeping the rest of it (src/config/write.ts). */
export async function setEnabled(file: string, scope: ConfigScope, name: string, enabled: boolean): Promise<ConfigResult<void>> {
  // The writer loads only to write: every start reads the switches (readEnablement), few ever change one.
  const { editConfigFile } = await import("../config/write.js");
  return editConfigFile(file, [{ key: ["extensions", name, "enabled"], value: enabled }], scope);
}

/** The file's object; `problem` undefined: there is no file. */
function readObject(file: string): { value: Record<string, unknown> } | { problem: string | undefined } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === "ENOENT" || code === "ENOTDIR" ? undefined : `${file} cannot be read (${code})` };
  }
  try {
    const value: unknown = JSON.parse(text.replace(/^\uFEFF/, ""));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { value: value as Record<string, unknown> };
    return { problem: `${file} must hold one JSON object` };
  } catch (error) {
    return { problem: `${file} is not valid JSON (${(error as Error).message})` };
  }
}
