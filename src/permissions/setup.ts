/**
 * Everything a run's permissions come from, put together: the user and project config files, the folder's
 * trust, and the flags (`--allow`, `--deny`, `--permission-mode`, `--dangerously-skip-permissions`,
 * `--trust-project`). Flags rank above both files; a flag's rule adds to theirs (deny still beats allow).
 */
import { join } from "node:path";
import { homedir } from "node:os";
import { configFilePath } from "../config/config-file.js";
import type { ConfigResult } from "../config/errors.js";
import { permissionConfig, readPermissionLayer, type PermissionConfig, type PermissionLayer } from "./config.js";
import { PERMISSION_MODES, PermissionEngine, type PermissionMode } from "./engine.js";
import { parseRule, type Rule } from "./rules.js";
import { isTrustedFolder, offerParts, projectOffer, type ProjectOffer } from "./trust.js";

export interface PermissionFlags {
  allow?: readonly string[];
  deny?: readonly string[];
  /** `--permission-mode`. */
  mode?: string;
  /** `--dangerously-skip-permissions`. */
  bypass?: boolean;
  /** `--trust-project`. */
  trustProject?: boolean;
}

export interface PermissionSetup {
  engine: PermissionEngine;
  /** Where the mode came from: a flag, a config file:line, or the default. */
  modeSource: string;
  /** Whether the folder's own code and widening settings load. */
  trusted: boolean;
  /** What the folder would load once trusted (empty parts: nothing to trust). */
  offer: ProjectOffer;
  /** That, in words, when the folder is not trusted; empty when it is, or brings nothing. */
  untrustedParts: string[];
  config: PermissionConfig;
  /** Bad rules and keys (file:line each), for stderr. */
  problems: string[];
  userConfigPath: string;
  projectConfigPath: string;
}

export interface PermissionSetupOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  flags: PermissionFlags;
}

/** Reads the files and flags; a file that is not JSON, or a bad flag, is an error naming it. */
export function setupPermissions(options: PermissionSetupOptions): ConfigResult<PermissionSetup> {
  const home = options.env.HOME || homedir();
  const userConfigPath = configFilePath(options.env);
  const projectConfigPath = join(options.cwd, ".awl", "config.json");
  const layers: PermissionLayer[] = [];
  for (const [path, scope] of [[userConfigPath, "user"], [projectConfigPath, "project"]] as const) {
    const read = readPermissionLayer(path, scope);
    if (!read.ok) return read;
    if (read.value) layers.push(read.value);
  }
  const flags = options.flags;
  const userOnly = permissionConfig(layers.filter((l) => l.scope === "user"), { workspace: options.cwd, home, projectTrusted: false });
  const trusted = flags.trustProject === true || isTrustedFolder(options.cwd, userOnly.trustedFolders);
  const config = permissionConfig(layers, { workspace: options.cwd, home, projectTrusted: trusted });

  const rules: Rule[] = [...config.rules];
  for (const [action, list] of [["allow", flags.allow], ["deny", flags.deny]] as const) {
    for (const text of list ?? []) {
      const parsed = parseRule(text, action, { kind: "flag", flag: action === "allow" ? "--allow" : "--deny" }, options.cwd, home);
      if (!parsed.ok) return { ok: false, error: { message: `--${action}: ${parsed.message}`, hint: 'write a rule as "tool" or "tool(pattern)", e.g. --allow "bash(git status)"; see docs/permissions.md' } };
      rules.push(parsed.rule);
    }
  }

  let mode: PermissionMode = config.mode?.value ?? "default";
  let modeSource = config.mode?.source ?? "default";
  if (flags.mode !== undefined) {
    if (!(PERMISSION_MODES as readonly string[]).includes(flags.mode)) {
      return { ok: false, error: { message: `--permission-mode expects one of ${PERMISSION_MODES.join(", ")}, got "${flags.mode}"`, hint: "see docs/permissions.md" } };
    }
    mode = flags.mode as PermissionMode;
    modeSource = "--permission-mode";
  }
  if (flags.bypass) {
    mode = "bypass";
    modeSource = "--dangerously-skip-permissions";
  }
  const offer = projectOffer(options.cwd);
  const untrustedParts = trusted ? [] : offerParts(offer, config.skipped);
  return {
    ok: true,
    value: {
      engine: new PermissionEngine({ workspace: options.cwd, home, mode, rules }),
      modeSource,
      trusted,
      offer,
      untrustedParts,
      config,
      problems: config.problems,
      userConfigPath,
      projectConfigPath,
    },
  };
}

/** The start-up words for bypass mode: plain, on stderr, every time. */
export function bypassNotice(source: string): string {
  return `bypass mode (${source}): every tool call runs without asking — writes, commands, network; only deny rules still hold`;
}

/** Whether the folder's own code may load: `--trust-project`, or listed in the user config's `trusted_folders`. */
export function isProjectTrusted(cwd: string, env: NodeJS.ProcessEnv, flag: boolean): boolean {
  if (flag) return true;
  const read = readPermissionLayer(configFilePath(env), "user");
  if (!read.ok || !read.value) return false;
  const config = permissionConfig([read.value], { workspace: cwd, home: env.HOME || homedir(), projectTrusted: false });
  return isTrustedFolder(cwd, config.trustedFolders);
}
