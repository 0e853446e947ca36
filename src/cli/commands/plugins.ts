/**
 * `awl plugins [--json] | enable NAME | disable NAME | remove NAME | check [DIR] | new NAME` (docs/plugins.md):
 * the installed plugins with version, source and state; switching one on or off; removing one (its files, its
 * data folder and its lock entry); checking a plugin folder as an author would in CI; writing a skeleton.
 */
import { parseArgs } from "node:util";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startPlugins } from "../../plugins/start-check.js";
import { readLock, removeInstalled, setEnabled, packageDir, pluginDataDir } from "../../plugins/store.js";
import { EXIT } from "../exit-codes.js";
import { processIO, usageError } from "./extension-host.js";
import { AWL_CLIENT_FOLDER, PLUGIN_SCHEMA_1_0 } from "../../plugins/package-format.js";

export const PLUGINS_USAGE = `usage: awl plugins [--json]
       awl plugins enable|disable|remove NAME
       awl plugins check [DIR]
       awl plugins new NAME

Lists the installed plugins (docs/plugins.md) with version, source and state (on, off, or not
loaded and why: e.g. its files changed since it was installed). enable/disable switch one on or
off; remove deletes its files and its data folder. check validates a plugin folder (default: .)
with file:line messages and exits 1 on an error, for CI. new writes a plugin skeleton.
Install with awl install SOURCE; update with awl update [NAME].
`;

export async function run(argv: readonly string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: { json: { type: "boolean" }, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (error) {
    return usageError(processIO, "plugins", (error as Error).message.split(". ")[0] ?? String(error));
  }
  if (parsed.values.help) {
    process.stdout.write(PLUGINS_USAGE);
    return EXIT.ok;
  }
  const [verb, ...rest] = parsed.positionals;
  switch (verb) {
    case undefined:
    case "list":
      return await list(parsed.values.json === true);
    case "enable":
    case "disable":
    case "remove":
      if (rest.length !== 1) return usageError(processIO, "plugins", `awl plugins ${verb} takes one NAME`);
      return verb === "remove" ? remove(rest[0]!) : switchPlugin(rest[0]!, verb === "enable");
    case "check":
      if (rest.length > 1) return usageError(processIO, "plugins", "awl plugins check takes at most one DIR");
      return (await import("../plugin-check.js")).checkPluginFolder(resolve(rest[0] ?? "."));
    case "new":
      if (rest.length !== 1) return usageError(processIO, "plugins", "awl plugins new takes one NAME");
      return writeSkeleton(rest[0]!);
    default:
      return usageError(processIO, "plugins", `unknown subcommand "${verb}" (list, enable, disable, remove, check, new)`);
  }
}

async function list(json: boolean): Promise<number> {
  const listed = pluginRows(process.env);
  if ("error" in listed) {
    process.stderr.write(`awl: ${listed.error}\n`);
    return EXIT.error;
  }
  for (const notice of listed.notices) process.stderr.write(`awl: ${notice}\n`);
  const { declaredPlugins } = await import("../project-plugins.js");
  const missing = (await declaredPlugins(process.cwd(), process.env).catch(() => [])).filter((d) => !d.installed);
  if (json) {
    process.stdout.write(`${JSON.stringify({ plugins: listed.rows, declared_missing: missing.map(({ name, source }) => ({ name, source })) }, null, 2)}\n`);
    return EXIT.ok;
  }
  process.stdout.write(pluginsText(listed.rows));
  if (missing.length > 0) {
    process.stdout.write(`Declared by this folder's .awl/config.json, not installed (awl install installs them once the folder is trusted):\n`);
    for (const d of missing) process.stdout.write(`  ${d.name}: ${d.source}\n`);
  }
  return EXIT.ok;
}

/** One installed plugin as `awl plugins` lists it. */
export interface PluginRow {
  name: string;
  version: string | null;
  source: string;
  resolved: string | null;
  layout: string;
  /** `on`, `off` or `not loaded` (then `reason`). */
  state: string;
  reason?: string;
  digest: string;
  installed_at: string;
  folder: string;
  data: string;
  /** Installed for these project folders only. */
  projects?: string[];
}

/** The installed plugins, each checked against its digest now, and what the check said besides (the start index rebuilt). */
export function pluginRows(env: NodeJS.ProcessEnv): { rows: PluginRow[]; notices: string[] } | { error: string } {
  let lock;
  try {
    lock = readLock(env);
  } catch (error) {
    return { error: (error as Error).message };
  }
  const checked = startPlugins(env);
  const rows = Object.values(lock.plugins)
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((entry): PluginRow => {
      const scope = entry.projects ? { projects: entry.projects } : {};
      const problem = checked.problems.find((p) => p.startsWith(`plugin "${entry.name}":`));
      return {
        name: entry.name,
        version: entry.version ?? null,
        source: entry.source,
        resolved: entry.resolved ?? null,
        layout: entry.layout,
        state: !entry.enabled ? "off" : problem ? "not loaded" : "on",
        ...(problem && { reason: problem.slice(`plugin "${entry.name}": `.length) }),
        digest: entry.digest,
        installed_at: entry.installed_at,
        folder: packageDir(env, entry.name),
        data: pluginDataDir(env, entry.name),
        ...scope,
      };
    });
  return { rows, notices: checked.notices };
}

/** The listing's text (also `/plugins` in the interactive mode). */
export function pluginsText(rows: readonly PluginRow[]): string {
  if (rows.length === 0) return "No plugin is installed (awl install SOURCE installs one; docs/plugins.md).\n";
  let text = "";
  for (const row of rows) {
    const at = row.resolved && row.resolved !== row.version ? ` at ${row.resolved.slice(0, 12)}` : "";
    text += `${row.name} ${row.version ?? "(no version)"}  ${row.state}  ${row.source}${at}\n`;
    if (row.projects) text += `  for ${row.projects.join(", ")} only\n`;
    if (row.reason) text += `  ${row.reason}\n`;
  }
  return text;
}

function switchPlugin(name: string, on: boolean): number {
  const said = switchText(process.env, name, on);
  if (said.startsWith("no plugin")) return usageError(processIO, "plugins", said);
  process.stdout.write(`${said}\n`);
  return EXIT.ok;
}

/** Switches `name` on or off and says so (or that it is not installed). */
export function switchText(env: NodeJS.ProcessEnv, name: string, on: boolean): string {
  if (!setEnabled(env, name, on)) return `no plugin "${name}" is installed (awl plugins lists them)`;
  return `${name} is ${on ? "on" : "off"}; it applies to awl runs started from now.`;
}

function remove(name: string): number {
  if (!removeInstalled(process.env, name)) return usageError(processIO, "plugins", `no plugin "${name}" is installed (awl plugins lists them)`);
  process.stdout.write(`Removed ${name}: its files and its data folder.\n`);
  return EXIT.ok;
}

/** `awl remove NAME`. */
export async function runRemove(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write("usage: awl remove NAME\n\nRemoves an installed plugin: its files, its data folder and its lock entry.\n");
    return EXIT.ok;
  }
  if (argv.length !== 1 || argv[0]!.startsWith("-")) return usageError(processIO, "remove", "awl remove takes one NAME");
  return remove(argv[0]!);
}

function writeSkeleton(name: string): number {
  const dir = resolve(name);
  const plugin = name.split("/").pop()!;
  if (!/^(?!.*(?:--|\.\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/.test(plugin) || plugin.length > 64) {
    return usageError(processIO, "plugins", `"${plugin}" is not a plugin name: lowercase letters, digits, - and ., starting and ending with a letter or digit`);
  }
  if (existsSync(dir)) return usageError(processIO, "plugins", `${dir} exists already`);
  const files: Record<string, string> = {
    "plugin.json": `${JSON.stringify({ $schema: PLUGIN_SCHEMA_1_0, name: plugin, version: "0.1.0", description: `What ${plugin} does.` }, null, 2)}\n`,
    [`skills/${plugin.replace(/\./g, "-")}/SKILL.md`]: `---\nname: ${plugin.replace(/\./g, "-")}\ndescription: Say what this skill does and when to use it.\n---\n\nInstructions for the model.\n`,
    [`${AWL_CLIENT_FOLDER}/extensions/${plugin.replace(/\./g, "_")}.lua`]: [
      `awl.register_tool {`,
      `  name = "${plugin.replace(/[^a-zA-Z0-9_-]/g, "_")}_hello",`,
      `  description = "Says hello.",`,
      `  kinds = { "read" },`,
      `  parameters = { type = "object", properties = { name = { type = "string" } }, required = { "name" } },`,
      `  run = function(args) return "hello, " .. args.name end,`,
      `}`,
      ``,
    ].join("\n"),
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  process.stdout.write(`Wrote ${dir}: ${Object.keys(files).join(", ")}.\nawl plugins check ${name} validates it; awl install ${name} installs it.\n`);
  return EXIT.ok;
}
