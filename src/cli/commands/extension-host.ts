/**
 * What the extension commands (`awl tools`, `awl tool call`, `awl extensions`) share: their flags, opening
 * the extensions, and printing paths the way a user typed them.
 */
import { relative } from "node:path";
import { parseArgs } from "node:util";
import type { ConfigResult } from "../../config/errors.js";
import { LuaToolSet } from "../../extensions/lua-tool-set.js";
import { formatUserMessage } from "../../ui/error-text.js";
import { EXIT } from "../exit-codes.js";
import { writeNotice } from "../../ui/output/wrap-text.js";
import { cleanUpOnTermination } from "../../runtime/termination.js";
import { resolveLuaLimits } from "../../runtime/lua-limits.js";
import { setupPermissions } from "../../permissions/setup.js";
import { untrustedNotice } from "../../permissions/trust.js";
import type { ConfigFileValues } from "../../config/config-file.js";
import { withheldVariables } from "../../util/secrets.js";

/** Where a command writes; the process streams by default, a buffer in tests. */
export interface CommandIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const processIO: CommandIO = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => writeNotice(process.stderr, text),
};

/** Flags every extension command takes; all but `--json` and `--help` are also flags of the main command. */
export const EXTENSION_COMMAND_FLAGS = {
  "extensions-dir": { type: "string", multiple: true },
  "no-std-tools": { type: "boolean" },
  "tool-timeout": { type: "string" },
  "lua-workers": { type: "string" },
  "lua-memory-mb": { type: "string" },
  "trust-project": { type: "boolean" },
  sandbox: { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export type ParsedCommand = { ok: true; values: Record<string, unknown>; positionals: string[] } | { ok: false; message: string };

/** Parses a command's arguments; a bad flag is a message, never a throw. */
export function parseCommandArgs(argv: readonly string[], extra: Record<string, { type: "string" | "boolean" }> = {}): ParsedCommand {
  try {
    const parsed = parseArgs({ args: [...argv], options: { ...EXTENSION_COMMAND_FLAGS, ...extra }, allowPositionals: true, strict: true });
    return { ok: true, values: parsed.values, positionals: parsed.positionals };
  } catch (error) {
    return { ok: false, message: (error as Error).message.split(". ")[0] ?? String(error) };
  }
}

/** `--timeout MS` as a number, or a message saying what is wrong with it. */
export function parseTimeoutFlag(value: unknown, flag: string): number | string | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0) return `${flag} expects a whole number of milliseconds above 0, got "${String(value)}"`;
  return ms;
}

/**
 * Discovers and loads every extension for a listing or a direct call (waits for the real load, never the
 * cache), with the Lua limits of the flags and config file; a bad limit is an error to print. An untrusted
 * folder's own extensions are skipped: `onUntrusted` hears what was skipped (default: a notice on stderr).
 */
export async function openExtensions(
  values: Record<string, unknown>,
  io: CommandIO = processIO,
  onUntrusted: (parts: readonly string[]) => void = (parts) => io.stderr(`awl: ${untrustedNotice(process.cwd(), parts)}\n`),
): Promise<ConfigResult<LuaToolSet>> {
  const limits = await resolveLuaLimits(values, process.env);
  if (!limits.ok) return limits;
  const setup = await setupPermissions({ cwd: process.cwd(), env: process.env, flags: { trustProject: values["trust-project"] === true, sandbox: values.sandbox === true } });
  if (!setup.ok) return setup;
  if (setup.value.untrustedParts.length > 0) onUntrusted(setup.value.untrustedParts);
  // Imported here: `awl -p` opens its tools through openToolsForChat, whose start-up needs no sandbox module.
  const sandboxed = await (await import("../../permissions/sandbox.js")).runSandbox(setup.value);
  if (!sandboxed.ok) return sandboxed;
  const sandbox = sandboxed.value;
  const tools = await LuaToolSet.open({
    cwd: process.cwd(),
    env: process.env,
    extensionDirs: (values["extensions-dir"] as string[] | undefined) ?? [],
    trustProject: setup.value.trusted,
    ...(setup.value.unpinned && { unpinnedExtensions: setup.value.unpinned.extensions }),
    ...(sandbox && { sandbox }),
    withheldEnv: withheldVariables(setup.value.files.values as ConfigFileValues),
    ...(setup.value.config.passEnv && { passEnv: setup.value.config.passEnv.value }),
    ...(values["no-std-tools"] === true && { bundledDir: false as const }),
    waitForLoad: true,
    ...limits.value,
  });
  cleanUpOnTermination({ kill: () => tools.killProcesses(), close: () => tools.close() });
  return { ok: true, value: tools };
}

/**
 * Whether this folder's own extensions load: it is trusted (docs/permissions.md) or `--trust-project` says so;
 * when it is not, what it would have loaded, in words (empty when it brings nothing).
 */
export async function projectTrust(flag: boolean): Promise<ConfigResult<{ trusted: boolean; untrustedParts: string[] }>> {
  const setup = await setupPermissions({ cwd: process.cwd(), env: process.env, flags: { trustProject: flag } });
  if (!setup.ok) return setup;
  return { ok: true, value: { trusted: setup.value.trusted, untrustedParts: setup.value.untrustedParts } };
}

/** A path relative to cwd when it lies below it, absolute otherwise. */
export function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith("..") && !rel.startsWith("/") ? rel : path;
}

/** Prints a configuration error (a bad limit flag or config key) and returns the usage exit code. */
export function configError(io: CommandIO, error: { message: string; hint: string }): number {
  io.stderr(formatUserMessage(error));
  return EXIT.usage;
}

/** Prints a usage error for `awl COMMAND` and returns the usage exit code. */
export function usageError(io: CommandIO, command: string, message: string): number {
  io.stderr(formatUserMessage({ message, hint: `see awl ${command} --help` }));
  return EXIT.usage;
}
