/**
 * Writing permission choices to a config file: "always allow" rules (`permissions.allow`), revoking a rule,
 * and trusting a folder (`trusted_folders`, user file only). Through the config writer (src/config/write.ts):
 * the file's other keys and layout stay, the result passes the schema, and it replaces the file atomically.
 */
import { readConfigFile, type ConfigScope } from "../config/config-file.js";
import { editConfigFile } from "../config/write.js";
import { permissionLayer } from "./config.js";
import { parseRule, type Rule } from "./rules.js";
import { pinFolder, unpinFolder } from "../trust/pin.js";

/** The file's values (a missing file: none); a file that cannot be read or checked is an error. */
async function valuesOf(path: string, scope: ConfigScope): Promise<Record<string, unknown>> {
  const read = await readConfigFile(path, scope);
  if (!read.ok) throw new Error(read.error.message);
  return read.value?.values ?? {};
}

async function write(path: string, scope: ConfigScope, edits: Parameters<typeof editConfigFile>[1]): Promise<void> {
  const written = await editConfigFile(path, edits, scope);
  if (!written.ok) throw new Error(written.error.message);
}

function listAt(values: Record<string, unknown>, action: string): unknown[] {
  const section = values.permissions;
  const list = typeof section === "object" && section !== null ? (section as Record<string, unknown>)[action] : undefined;
  return Array.isArray(list) ? list : [];
}

/** Appends allow rules (those not there yet) and returns them as rules with their file and line. */
export async function saveAllowRules(path: string, scope: ConfigScope, texts: readonly string[], workspace: string, home: string): Promise<Rule[]> {
  const present = listAt(await valuesOf(path, scope), "allow");
  const added = [...new Set(texts)].filter((rule) => !present.includes(rule));
  if (added.length > 0) await write(path, scope, added.map((rule) => ({ key: "permissions.allow", value: rule, append: true })));
  const read = await readConfigFile(path, scope);
  if (!read.ok || !read.value) return [];
  const layer = permissionLayer(read.value);
  const allow = listAt(layer.values, "allow");
  return texts.flatMap((rule) => {
    const parsed = parseRule(rule, "allow", { kind: scope, file: path, line: layer.lineOf(["permissions", "allow", allow.indexOf(rule)]) }, workspace, home);
    return parsed.ok ? [parsed.rule] : [];
  });
}

/** Removes one rule (its text in its action's list) from a file; false when it was not there. */
export async function removeSavedRule(path: string, scope: ConfigScope, action: string, text: string): Promise<boolean> {
  const matches = (r: unknown): boolean => typeof r === "string" && r.trim() === text;
  if (!listAt(await valuesOf(path, scope), action).some(matches)) return false;
  // The list as it is when written (another awl may have changed it since): the first such rule goes.
  const without = (list: unknown): unknown => (Array.isArray(list) ? list.filter((_, i) => i !== list.findIndex(matches)) : list);
  await write(path, scope, [{ key: `permissions.${action}`, update: without }]);
  return true;
}

/**
 * Adds (or removes) a folder in the user file's `trusted_folders`, keeping what others add at the same time; with
 * the pin of what it holds now (or without it): trust covers the content the folder had when the user said yes
 * (src/trust/pin.ts).
 */
export async function setFolderTrust(userConfigPath: string, folder: string, trusted: boolean): Promise<void> {
  await write(userConfigPath, "user", [
    {
      key: "trusted_folders",
      update: (current) => {
        const list = Array.isArray(current) ? current.filter((f) => f !== folder) : [];
        return trusted ? [...list, folder] : list;
      },
    },
  ]);
  if (trusted) pinFolder(folder, userConfigPath);
  else unpinFolder(folder, userConfigPath);
}
