/**
 * `awl plugins check [DIR]` (docs/plugins.md, "Publishing"): validates a plugin folder as an author would in CI,
 * each message naming file:line. The manifest against Agent Plugins 1.0 (or Claude Code's layout), every skill's
 * `SKILL.md` against the Agent Skills rules, every prompt command and agent definition, `mcp.json` (each
 * server's entry, and that its program exists), `hooks.json`, and the Lua extensions loaded in a scratch worker
 * with a private home (their tools are registered, never called). Exit 1 on any error, 0 otherwise (notes, such
 * as unknown manifest fields, do not fail the check).
 */
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import { readDefinition } from "../agents/definitions.js";
import { LuaToolSet } from "../extensions/lua-tool-set.js";
import { listNames, markdownFiles } from "../plugins/folder-list.js";
import { readPluginPackage, type PluginPackage } from "../plugins/manifest.js";
import { packageContent } from "../plugins/package-files.js";
import { readPluginHooks } from "../plugins/plugin-hooks.js";
import { readPluginMcp, type PluginPlaces } from "../plugins/plugin-mcp.js";
import { readCommandFile } from "../prompt-commands/discover-commands.js";
import { checkSkillFields } from "../skills/skill-rules.js";
import { parseFrontMatter } from "../util/front-matter.js";
import { EXIT } from "./exit-codes.js";

/** Checks the plugin at `dir`, printing `error:` and `note:` lines; the exit code. */
export async function checkPluginFolder(dir: string): Promise<number> {
  const errors: string[] = [];
  const notes: string[] = [];
  let pkg: PluginPackage;
  try {
    pkg = readPluginPackage(dir);
  } catch (error) {
    process.stdout.write(`error: ${(error as Error).message}\n`);
    return EXIT.error;
  }
  notes.push(...pkg.notices);
  try {
    packageContent(dir);
  } catch (error) {
    errors.push(`${dir}: ${(error as Error).message}`);
  }
  const scratch = mkdtempSync(join(tmpdir(), "awl-plugin-check-"));
  try {
    const places: PluginPlaces = { name: pkg.name, layout: pkg.layout, root: dir, data: join(scratch, "data") };
    const { parts } = pkg;
    if (parts.skillsDir) errors.push(...checkSkills(parts.skillsDir));
    if (parts.commandsDir) for (const file of markdownFiles(parts.commandsDir)) {
      const read = await readCommandFile(file);
      if (read instanceof Error) errors.push(read.message);
    }
    if (parts.agentsDir) for (const file of markdownFiles(parts.agentsDir)) {
      const read = await readDefinition(file, "user");
      if ("message" in read) errors.push(read.message);
    }
    if (parts.mcpFile) {
      for (const server of readPluginMcp(parts.mcpFile, places, process.env)) {
        if (server.error) errors.push(server.error);
        else if (server.transport?.type === "stdio" && !findProgram(server.transport.command, process.env)) {
          errors.push(`${server.file}: server "${server.name}": its program ${server.transport.command} is not there${isAbsolute(server.transport.command) ? "" : " (not on PATH)"}`);
        }
      }
    }
    if (parts.hooksFile) errors.push(...readPluginHooks(parts.hooksFile, places).problems);
    if (parts.extensionsDir) errors.push(...(await checkExtensions(parts.extensionsDir, scratch)));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  for (const line of errors) process.stdout.write(`error: ${line}\n`);
  for (const line of notes) process.stdout.write(`note: ${line}\n`);
  process.stdout.write(errors.length === 0 ? `${pkg.name}: no errors (${layoutName(pkg)}).\n` : `${pkg.name}: ${errors.length} error${errors.length === 1 ? "" : "s"}.\n`);
  return errors.length === 0 ? EXIT.ok : EXIT.error;
}

function checkSkills(dir: string): string[] {
  const out: string[] = [];
  for (const name of listNames(dir)) {
    const file = join(dir, name, "SKILL.md");
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue; // not a skill folder
    }
    try {
      const checked = checkSkillFields(parseFrontMatter(text, file).data, name);
      if (!checked.ok) out.push(`${file}:1: ${checked.reasons.join("; ")}`);
    } catch (error) {
      out.push((error as Error).message);
    }
  }
  return out;
}

/** Loads the extensions in a worker of a private home: registration problems, never a tool call. */
async function checkExtensions(dir: string, scratch: string): Promise<string[]> {
  const env = { PATH: process.env.PATH ?? "", HOME: scratch, XDG_CONFIG_HOME: join(scratch, "config"), XDG_DATA_HOME: join(scratch, "share"), XDG_CACHE_HOME: join(scratch, "cache") };
  const tools = await LuaToolSet.open({ cwd: scratch, env, extensionDirs: [dir], bundledDir: false, cachePath: false, waitForLoad: true, maxSlots: 1 });
  try {
    return tools.problems();
  } finally {
    await tools.close();
  }
}

function findProgram(command: string, env: NodeJS.ProcessEnv): boolean {
  const candidates = command.includes("/") ? [command] : (env.PATH ?? "").split(delimiter).filter(Boolean).map((d) => join(d, command));
  return candidates.some((path) => {
    try {
      accessSync(path, constants.X_OK);
      return statSync(path).isFile();
    } catch {
      return false;
    }
  });
}

function layoutName(pkg: PluginPackage): string {
  return pkg.layout === "agent-plugins" ? "Agent Plugins 1.0" : pkg.layout === "claude-code" ? "Claude Code plugin" : "folder of Lua extensions";
}
