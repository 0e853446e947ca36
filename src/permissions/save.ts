/**
 * Writing permission choices to a config file: "always allow" rules (`permissions.allow`), revoking a rule,
 * and trusting a folder (`trusted_folders`, user file only). The file's other keys stay; the new text replaces
 * the file atomically (a temporary file beside it, renamed over it), so a crash never leaves half a file.
 */
import { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parsePermissionLayer } from "./config.js";
import { parseRule, type Rule } from "./rules.js";

/** Reads the file's object (a missing file is `{}`), lets `change` edit it, and writes it back atomically. */
export function updateConfigObject(path: string, change: (config: Record<string, unknown>) => void): string {
  let text = "{}\n";
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const layer = parsePermissionLayer(path, "user", text);
  if (!layer.ok) throw new Error(layer.error.message);
  const config = layer.value.values;
  change(config);
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
  const next = `${JSON.stringify(config, null, indent)}\n`;
  let target = path;
  try {
    target = realpathSync(path); // a symlinked file (dotfile managers) stays a link; its target is replaced
  } catch {
    mkdirSync(dirname(path), { recursive: true });
  }
  const temp = join(dirname(target), `.${process.pid}-${Date.now()}.config.json.tmp`);
  writeFileSync(temp, next);
  renameSync(temp, target);
  return next;
}

function section(config: Record<string, unknown>): Record<string, unknown> {
  const current = config.permissions;
  if (typeof current === "object" && current !== null && !Array.isArray(current)) return current as Record<string, unknown>;
  return (config.permissions = {});
}

/** Appends allow rules (those not there yet) and returns them as rules with their file and line. */
export function saveAllowRules(path: string, scope: "user" | "project", texts: readonly string[], workspace: string, home: string): Rule[] {
  const text = updateConfigObject(path, (config) => {
    const permissions = section(config);
    const allow = Array.isArray(permissions.allow) ? (permissions.allow as unknown[]) : [];
    for (const rule of texts) if (!allow.includes(rule)) allow.push(rule);
    permissions.allow = allow;
  });
  const layer = parsePermissionLayer(path, scope, text);
  if (!layer.ok) return [];
  const allow = (layer.value.values.permissions as { allow: string[] }).allow;
  return texts.flatMap((rule) => {
    const index = allow.indexOf(rule);
    const parsed = parseRule(rule, "allow", { kind: scope, file: path, line: layer.value.lineOf(["permissions", "allow", index]) }, workspace, home);
    return parsed.ok ? [parsed.rule] : [];
  });
}

/** Removes one rule (its text in its action's list) from a file; false when it was not there. */
export function removeSavedRule(path: string, action: string, text: string): boolean {
  let removed = false;
  updateConfigObject(path, (config) => {
    const permissions = section(config);
    const list = permissions[action];
    if (!Array.isArray(list)) return;
    const index = list.findIndex((r) => typeof r === "string" && r.trim() === text);
    if (index < 0) return;
    list.splice(index, 1);
    removed = true;
  });
  return removed;
}

/** Adds (or removes) a folder in the user file's `trusted_folders`. */
export function setFolderTrust(userConfigPath: string, folder: string, trusted: boolean): void {
  updateConfigObject(userConfigPath, (config) => {
    const list = Array.isArray(config.trusted_folders) ? (config.trusted_folders as unknown[]).filter((f) => f !== folder) : [];
    if (trusted) list.push(folder);
    config.trusted_folders = list;
  });
}
