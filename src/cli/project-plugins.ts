/**
 * Plugins a project declares in `.awl/config.json` (docs/plugins.md, "Project plugins"):
 * `"plugins": {"kit": "git:https://example.com/kit.git@v1"}`. `awl install --project SOURCE` installs one for the
 * folder and writes its declaration; `awl install` with no argument installs the declared ones that are missing,
 * each after its review, once the folder is trusted. An untrusted folder's declarations are listed, never
 * fetched: a repository cannot make awl download anything before you trust it.
 */
import { realpathSync } from "node:fs";
import { projectConfigPath, readConfigFile } from "../config/config-file.js";
import { editConfigFile } from "../config/write.js";
import { isProjectTrusted } from "../permissions/setup.js";
import { pluginAppliesTo } from "../plugins/start-check.js";
import { readLock, type LockEntry } from "../plugins/store.js";
import { EXIT } from "./exit-codes.js";

/** One declared plugin and whether it is installed for this folder. */
export interface DeclaredPlugin {
  name: string;
  source: string;
  installed: boolean;
}

/** The plugins `.awl/config.json` of `cwd` declares (none when it has no `plugins`); throws on a bad file. */
export async function declaredPlugins(cwd: string, env: NodeJS.ProcessEnv): Promise<DeclaredPlugin[]> {
  const read = await readConfigFile(projectConfigPath(cwd), "project");
  if (!read.ok) throw new Error(`${read.error.message} (${read.error.hint})`);
  const section = read.value?.values.plugins;
  if (typeof section !== "object" || section === null) return [];
  const lock = readLock(env);
  return Object.entries(section as Record<string, string>).map(([name, source]) => {
    const entry = lock.plugins[name];
    return { name, source, installed: entry !== undefined && pluginAppliesTo(entry, cwd) };
  });
}

/** How `installDeclared` installs one declared plugin for the folder (`installOne` of commands/install.ts). */
export type InstallForProject = (source: string, yes: boolean, options: { scope: { project: string }; expectName: string }) => Promise<number>;

/** `awl install` without SOURCE. */
export async function installDeclared(yes: boolean, installOne: InstallForProject): Promise<number> {
  const cwd = realpathSync(process.cwd());
  let declared: DeclaredPlugin[];
  try {
    declared = await declaredPlugins(cwd, process.env);
  } catch (error) {
    process.stderr.write(`awl: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  if (declared.length === 0) {
    process.stderr.write(`awl: install what? Give a SOURCE (awl install --help), or declare plugins in ${projectConfigPath(cwd)} ("plugins")\n`);
    return EXIT.usage;
  }
  const missing = declared.filter((d) => !d.installed);
  for (const d of declared.filter((d) => d.installed)) process.stdout.write(`${d.name}: installed\n`);
  if (missing.length === 0) return EXIT.ok;
  if (!(await isProjectTrusted(cwd, process.env, false))) {
    process.stdout.write(`This folder declares plugins it does not have yet; it is not trusted, so none is fetched:\n`);
    for (const d of missing) process.stdout.write(`  ${d.name}: ${d.source}\n`);
    process.stdout.write(`Trust it first (awl permissions trust), or install one yourself (awl install --project SOURCE).\n`);
    return EXIT.error;
  }
  let code: number = EXIT.ok;
  for (const d of missing) {
    const result = await installOne(d.source, yes, { scope: { project: cwd }, expectName: d.name });
    if (result !== EXIT.ok) code = result;
  }
  return code;
}

/**
 * Writes the declaration of an installed plugin into this folder's `.awl/config.json`, and says when the folder is
 * not trusted: a plugin installed for a project loads only while its folder is trusted, like the folder's own code.
 */
export async function declarePlugin(entry: LockEntry): Promise<void> {
  const cwd = realpathSync(process.cwd());
  const file = projectConfigPath(cwd);
  const written = await editConfigFile(file, [{ key: ["plugins", entry.name], value: entry.source }], "project");
  if (!written.ok) process.stderr.write(`awl: ${entry.name} is installed, but its declaration was not written: ${written.error.message}\n`);
  else process.stdout.write(`Declared in ${file}: "plugins": {"${entry.name}": "${entry.source}"}\n`);
  if (entry.projects && !(await isProjectTrusted(cwd, process.env, false))) {
    process.stdout.write(`This folder is not trusted: ${entry.name} loads here once you trust it (awl permissions trust).\n`);
  }
}
