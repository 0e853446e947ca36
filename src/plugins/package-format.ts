/**
 * Where the parts of a package are, by its layout (docs/plugins.md, "Format"): the folder and file names each
 * layout uses, and the format's fixed names. Reading which parts a package has costs one `stat` per part; nothing
 * here reads a manifest (manifest.ts checks one at install).
 */
import { join } from "node:path";
import { exists, isDir } from "./folder-list.js";

/** Which format a package is in. */
export type PluginLayout = "agent-plugins" | "claude-code" | "lua-folder" | "lua-rock";

/** What awl writes into the package it makes of a rock (fetch-rock.ts): `{name, version, rock, modules, dependencies}`. */
export const ROCK_FILE = "awl-rock.json";

/** awl's client folder in an Agent Plugins package (spec §8.2: a top-level folder named by a reverse-domain namespace). */
export const AWL_CLIENT_FOLDER = "dev.awl";

/** The `$schema` of an Agent Plugins 1.0 manifest. */
export const PLUGIN_SCHEMA_1_0 = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json";
/** The `$schema` of an Agent Plugins 1.0 `mcp.json`. */
export const MCP_SCHEMA_1_0 = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json";

/** The parts of a package, by where they are (absent: the package has none). */
export interface PluginParts {
  /** A folder of Lua extensions, discovered like `~/.config/awl/extensions/`. */
  extensionsDir?: string;
  /** Agent Skills: `<name>/SKILL.md` folders. */
  skillsDir?: string;
  /** Markdown prompt commands. */
  commandsDir?: string;
  /** Markdown sub-agent definitions. */
  agentsDir?: string;
  /** Lua modules for `require` (a rock's `lua/`), searched before the system's Lua trees. */
  luaDir?: string;
  /** `mcp.json` (Agent Plugins) or `.mcp.json` (Claude Code). */
  mcpFile?: string;
  /** Command hooks in Claude Code's format (`{"hooks": {Event: [...]}}` or the events at the top). */
  hooksFile?: string;
}

/** Each layout's parts: `[part, path below the root, folder or file]`. */
const PLACES: Record<PluginLayout, ReadonlyArray<readonly [keyof PluginParts, string, "dir" | "file"]>> = {
  "agent-plugins": [
    ["skillsDir", "skills", "dir"],
    ["mcpFile", "mcp.json", "file"],
    ["extensionsDir", `${AWL_CLIENT_FOLDER}/extensions`, "dir"],
    ["commandsDir", `${AWL_CLIENT_FOLDER}/commands`, "dir"],
    ["agentsDir", `${AWL_CLIENT_FOLDER}/agents`, "dir"],
    ["hooksFile", `${AWL_CLIENT_FOLDER}/hooks.json`, "file"],
  ],
  "claude-code": [
    ["skillsDir", "skills", "dir"],
    ["commandsDir", "commands", "dir"],
    ["agentsDir", "agents", "dir"],
    ["hooksFile", "hooks/hooks.json", "file"],
    ["mcpFile", ".mcp.json", "file"],
  ],
  "lua-folder": [["extensionsDir", "", "dir"]],
  "lua-rock": [["luaDir", "lua", "dir"]],
};

/** The parts the package at `root`, in `layout`, has: absolute paths of those that exist. */
export function partsOf(layout: PluginLayout, root: string): PluginParts {
  const parts: PluginParts = {};
  for (const [key, rel, kind] of PLACES[layout]) {
    const path = rel === "" ? root : join(root, rel);
    if (kind === "dir" ? isDir(path) : exists(path)) parts[key] = path;
  }
  return parts;
}
