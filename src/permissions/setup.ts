/**
 * Everything a run's permissions come from, put together: the user and project config files, the folder's
 * trust, and the flags (`--allow`, `--deny`, `--permission-mode`, `--dangerously-skip-permissions`,
 * `--trust-project`). Flags rank above both files; a flag's rule adds to theirs (deny still beats allow).
 */
import type { ConfigResult } from "../config/errors.js";
import { loadConfig, withoutProjectKeys, type LoadedConfig } from "../config/layers.js";
import type { PinCheck } from "../trust/pin.js";
import { realPathOf } from "./paths.js";
import { awlDataDir, userConfigDir } from "../config/paths.js";
import { permissionConfig, permissionLayer, type PermissionConfig } from "./config.js";
import { isPermissionMode, PERMISSION_MODES, PermissionEngine, type PermissionMode } from "./engine.js";
import { expandHome } from "./paths.js";
import { parseRule, type Rule } from "./rules.js";
import { offerParts, projectOffer, type ProjectOffer } from "./trust.js";
import { os } from "../util/lazy-builtin.js";

export interface PermissionFlags {
  allow?: readonly string[];
  deny?: readonly string[];
  /** `--permission-mode`. */
  mode?: string;
  /** `--dangerously-skip-permissions`. */
  bypass?: boolean;
  /** `--trust-project`. */
  trustProject?: boolean;
  /** `--sandbox`. */
  sandbox?: boolean;
}

export interface PermissionSetup {
  engine: PermissionEngine;
  /** Where the mode came from: a flag, a config file:line, or the default. */
  modeSource: string;
  /** Whether the folder's own code and widening settings load. */
  trusted: boolean;
  /** Present when the programs of the extensions run in the exec sandbox: who asked for it (a flag, a file:line). */
  sandbox?: { source: string; open?: string[] };
  /** A folder trusted by the user's list: its content against the content it was trusted with (src/trust/pin.ts). */
  pin?: PinCheck;
  /** What of a trusted folder changed since it was trusted and is not loaded this run (by kind: names). */
  unpinned?: UnpinnedContent;
  /** What the folder would load once trusted (empty parts: nothing to trust). */
  offer: ProjectOffer;
  /** That, in words, when the folder is not trusted; empty when it is, or brings nothing. */
  untrustedParts: string[];
  /** Which of the two an untrusted folder brings (the trust question names only what is there). */
  untrustedBrings: { code: boolean; widening: boolean };
  config: PermissionConfig;
  /** Bad rules and keys (file:line each), for stderr. */
  problems: string[];
  userConfigPath: string;
  projectConfigPath: string;
  /** The config files as read for this setup (the settings read theirs from it too). */
  files: LoadedConfig;
}

/** The new and changed content of a trusted folder, left out of this run until the user trusts the change. */
export interface UnpinnedContent {
  /** `kind:name` of each item (src/trust/content.ts). */
  keys: ReadonlySet<string>;
  extensions: ReadonlySet<string>;
  mcpServers: ReadonlySet<string>;
}

export interface PermissionSetupOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  flags: PermissionFlags;
}

/**
 * Reads the config files (the layered config, src/config: checked against the schema, trusted as the user's
 * `trusted_folders` or `--trust-project` say) and the flags; a bad file or flag is an error naming it.
 */
export async function setupPermissions(options: PermissionSetupOptions): Promise<ConfigResult<PermissionSetup>> {
  const home = options.env.HOME || os().homedir();
  const flags = options.flags;
  const read = await loadConfig({ env: options.env, cwd: options.cwd, ...(flags.trustProject === true && { trustProject: true }) });
  if (!read.ok) return read;
  let files = read.value;
  const userConfigPath = files.paths.user;
  // Trusted by the list (not for this run only): trusted as the content it had when the user said yes.
  // (The pins' modules load only for a trusted folder: an untrusted one's content is never read.)
  const pins = files.trusted && flags.trustProject !== true ? await import("../trust/pin.js") : undefined;
  const pin = pins?.checkPin(realPathOf(options.cwd), userConfigPath);
  const unpinned = pins && pin && pin.unpinned.size > 0
    ? { keys: pin.unpinned, extensions: pins.namesOf(pin.unpinned, "extension"), mcpServers: pins.namesOf(pin.unpinned, "mcp") }
    : undefined;
  if (pins && unpinned) {
    const hooks = pins.namesOf(unpinned.keys, "hook");
    if (hooks.size > 0) {
      const { dropHooks } = await import("../trust/content.js");
      for (const layer of files.layers) if (layer.scope === "project") dropHooks(layer.values.hooks, hooks);
    }
    files = withoutProjectKeys(files, [...pins.namesOf(unpinned.keys, "setting")].filter((key) => !key.startsWith("permissions.")));
  }
  const projectConfigPath = files.paths.project;
  const layers = files.layers.map(permissionLayer);
  const trusted = files.trusted;
  const config = permissionConfig(layers, { workspace: options.cwd, home, projectTrusted: trusted, ...(unpinned && { unpinned: unpinned.keys }) });

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
    if (!isPermissionMode(flags.mode)) {
      return { ok: false, error: { message: `--permission-mode expects one of ${PERMISSION_MODES.join(", ")}, got "${flags.mode}"`, hint: "see docs/permissions.md" } };
    }
    mode = flags.mode;
    modeSource = "--permission-mode";
  }
  if (flags.bypass) {
    mode = "bypass";
    modeSource = "--dangerously-skip-permissions";
  }
  const asked = flags.sandbox ? "--sandbox" : config.sandbox?.value ? config.sandbox.source : undefined;
  const sandbox = asked === undefined ? undefined : { source: asked, ...(config.sandboxOpen && { open: config.sandboxOpen.value.map((path) => expandHome(path, home)) }) };
  const offer = projectOffer(options.cwd);
  const untrustedParts = trusted ? [] : offerParts(offer, config.skipped);
  return {
    ok: true,
    value: {
      engine: new PermissionEngine({
        workspace: options.cwd,
        home,
        mode,
        rules,
        sandboxAutoAllow: sandbox !== undefined && config.sandboxAutoAllow?.value === true,
        protectedFolders: [userConfigDir(options.env), awlDataDir(options.env)],
      }),
      modeSource,
      trusted,
      ...(sandbox && { sandbox }),
      ...(pin && { pin }),
      ...(unpinned && { unpinned }),
      offer,
      untrustedParts,
      untrustedBrings: { code: !trusted && Boolean(offer.extensionsDir), widening: !trusted && config.skipped.length > 0 },
      config,
      problems: config.problems,
      userConfigPath,
      projectConfigPath,
      files,
    },
  };
}

/** The start-up words for bypass mode: plain, on stderr, every time. */
export function bypassNotice(source: string): string {
  return `bypass mode (${source}): every tool call runs without asking — writes, commands, network; only deny rules still hold`;
}

/** Whether the folder's own code may load: `--trust-project`, or listed in the user config's `trusted_folders`. */
export async function isProjectTrusted(cwd: string, env: NodeJS.ProcessEnv, flag: boolean): Promise<boolean> {
  if (flag) return true;
  const read = await loadConfig({ env, cwd });
  return read.ok && read.value.trusted;
}
