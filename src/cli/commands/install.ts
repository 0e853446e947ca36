/**
 * `awl install SOURCE [--yes]` and `awl update [NAME[@REF]] [--yes]` (docs/plugins.md): fetch a plugin, show what
 * it brings (an update: what changes), ask, then install it in place with its digest in the lock file. Nothing
 * of the plugin runs before the answer; a no, or any failure, leaves what was installed as it was.
 */
import { realpathSync } from "node:fs";
import { parseArgs } from "node:util";
import { discardInstall, finishInstall, prepareInstall, type PreparedInstall } from "../../plugins/install.js";
import { splitGitSpec } from "../../plugins/fetch-source.js";
import { packageContent } from "../../plugins/package-files.js";
import { packageDir, readLock, widenScope, type LockEntry } from "../../plugins/store.js";
import { summaryDiff, summaryLines } from "../../plugins/summary.js";
import { EXIT } from "../exit-codes.js";
import { askYesNo } from "../plugin-review.js";
import { processIO, usageError } from "./extension-host.js";

export const INSTALL_USAGE = `usage: awl install SOURCE [--yes] [--project]
       awl install [--yes]


Installs a plugin (docs/plugins.md) for your user, into ~/.local/share/awl/plugins/. SOURCE is
  git:URL[@REF]        a git repository (https, ssh, file:// or a path) at a tag, branch or commit
  npm:NAME[@VERSION]   a package from the npm registry your npm is configured for
  luarocks:NAME[@VER]  a pure-Lua rock (its modules for require; needs luarocks)
  ./folder             a plugin folder
  ./plugin.tgz         a packed plugin (npm pack)
What the plugin brings (Lua extensions and their tools, hooks, MCP servers, commands, agents,
skills, size) is shown first and you are asked; --yes answers yes (without a terminal the answer
is read from standard input). Installing a plugin already installed updates it.
--project installs it for this folder only and declares it in .awl/config.json ("plugins").
Without SOURCE: installs the plugins this folder's .awl/config.json declares and that are
missing, each after its review, if the folder is trusted (an untrusted one's are listed only).
`;

export const UPDATE_USAGE = `usage: awl update [NAME[@REF]] [--yes]

Fetches each installed plugin (or NAME) again from its source (a git plugin: its ref again, or
REF instead), shows what changes and asks. The plugin's data folder is kept; what the package
shipped is replaced. A plugin that cannot be fetched (no network) keeps working as installed.
`;

interface Flags {
  yes?: boolean;
  project?: boolean;
  help?: boolean;
}

function parse(argv: readonly string[], command: string): { flags: Flags; positionals: string[] } | number {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: { yes: { type: "boolean", short: "y" }, project: { type: "boolean" }, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
    return { flags: values, positionals };
  } catch (error) {
    return usageError(processIO, command, (error as Error).message.split(". ")[0] ?? String(error));
  }
}

export async function run(argv: readonly string[]): Promise<number> {
  const parsed = parse(argv, "install");
  if (typeof parsed === "number") return parsed;
  if (parsed.flags.help) {
    process.stdout.write(INSTALL_USAGE);
    return EXIT.ok;
  }
  if (parsed.positionals.length > 1) return usageError(processIO, "install", "awl install takes one SOURCE");
  const yes = parsed.flags.yes === true;
  if (parsed.positionals.length === 0) return (await import("../project-plugins.js")).installDeclared(yes, installOne);
  if (!parsed.flags.project) return installOne(parsed.positionals[0]!, yes, { scope: "user" });
  const { declarePlugin } = await import("../project-plugins.js");
  return installOne(parsed.positionals[0]!, yes, { scope: { project: realpathSync(process.cwd()) }, then: declarePlugin });
}

/** How one install goes: its scope, the name it must have, what to do once installed. */
export interface InstallOptions {
  scope?: "user" | { project: string };
  updating?: LockEntry;
  /** The package must be this plugin (a project's declaration names it). */
  expectName?: string;
  then?: (entry: LockEntry) => Promise<void>;
}

/** `awl update`. */
export async function runUpdate(argv: readonly string[]): Promise<number> {
  const parsed = parse(argv, "update");
  if (typeof parsed === "number") return parsed;
  if (parsed.flags.help) {
    process.stdout.write(UPDATE_USAGE);
    return EXIT.ok;
  }
  let lock;
  try {
    lock = readLock(process.env);
  } catch (error) {
    process.stderr.write(`awl: ${(error as Error).message}\n`);
    return EXIT.error;
  }
  const wanted = parsed.positionals.map((arg) => {
    const at = arg.indexOf("@");
    return at > 0 ? { name: arg.slice(0, at), ref: arg.slice(at + 1) } : { name: arg };
  });
  const entries = wanted.length === 0 ? Object.values(lock.plugins) : wanted.map((w) => lock.plugins[w.name]);
  const missing = wanted.filter((w) => !lock.plugins[w.name]);
  if (missing.length > 0) return usageError(processIO, "update", `no plugin "${missing[0]!.name}" is installed (awl plugins lists them)`);
  if (entries.length === 0) {
    process.stdout.write("No plugin is installed.\n");
    return EXIT.ok;
  }
  let code: number = EXIT.ok;
  for (const entry of entries as LockEntry[]) {
    const ref = wanted.find((w) => w.name === entry.name)?.ref;
    if (ref !== undefined && entry.kind !== "git") return usageError(processIO, "update", `"${entry.name}" comes from ${entry.source}; only a git plugin takes @REF`);
    const source = ref === undefined ? entry.source : `git:${splitGitSpec(entry.source).url}@${ref}`;
    const result = await installOne(source, parsed.flags.yes === true, { updating: entry });
    if (result !== EXIT.ok) code = result;
  }
  return code;
}

/** Fetches, reviews and installs `source`; the exit code. */
export async function installOne(source: string, yes: boolean, options: InstallOptions = {}): Promise<number> {
  const { updating } = options;
  let prepared: PreparedInstall;
  try {
    prepared = await prepareInstall(source, process.cwd(), process.env);
  } catch (error) {
    const keeps = updating ? `; "${updating.name}" keeps working as installed` : "; nothing was installed";
    process.stderr.write(`awl: ${(error as Error).message}${keeps}\n`);
    return EXIT.error;
  }
  const { summary, previous } = prepared;
  const expected = updating?.name ?? options.expectName;
  if (expected !== undefined && prepared.pkg.name !== expected) {
    discardInstall(prepared);
    process.stderr.write(`awl: ${source} holds the plugin "${prepared.pkg.name}", not "${expected}"; nothing was changed\n`);
    return EXIT.error;
  }
  const intact = previous !== undefined && installedIntact(previous);
  if (previous) {
    if (previous.digest === prepared.content.digest && intact) {
      const widened = options.scope !== undefined && finishScopeOnly(previous, options.scope);
      discardInstall(prepared);
      if (widened) {
        const widenedEntry = widenScope(process.env, previous.name, options.scope!) ?? previous;
        await options.then?.(widenedEntry);
        process.stdout.write(`${previous.name} (${describeVersion(previous)}) is now installed ${options.scope === "user" ? "for every folder" : "for this folder too"}.\n`);
        return EXIT.ok;
      }
      await options.then?.(previous);
      process.stdout.write(`${previous.name} is up to date (${describeVersion(previous)}).\n`);
      return EXIT.ok;
    }
    const diff = summaryDiff(previous.summary, summary);
    process.stdout.write(`Update ${previous.name}: ${describeVersion(previous)} → ${describeVersion({ ...prepared.fetched, version: prepared.pkg.version })}\n`);
    if (!intact) process.stdout.write("  its installed files were changed since it was installed: this puts back the package's own\n");
    process.stdout.write(diff.length > 0 ? `${diff.join("\n")}\n` : "  what it brings is the same; its files changed\n");
  } else {
    process.stdout.write(`Install ${source}:\n${summaryLines(summary).join("\n")}\n`);
  }
  process.stdout.write(`Its code runs as you; awl's permission rules and sandbox still apply to its tools.\n`);
  const accepted = yes || (await askYesNo(previous ? "Update it? [y/N] " : "Install it? [y/N] "));
  if (!accepted) {
    discardInstall(prepared);
    process.stdout.write(`Nothing was ${previous ? "changed" : "installed"}${yes || process.stdin.isTTY ? "" : " (pass --yes to answer yes without a terminal)"}.\n`);
    return EXIT.ok;
  }
  const entry = finishInstall(prepared, process.env, options.scope);
  await options.then?.(entry);
  process.stdout.write(`${previous ? "Updated" : "Installed"} ${entry.name} (${describeVersion(entry)}).\n`);
  return EXIT.ok;
}

/** Whether the installed files of `entry` still have its digest. */
function installedIntact(entry: LockEntry): boolean {
  try {
    return packageContent(packageDir(process.env, entry.name)).digest === entry.digest;
  } catch {
    return false;
  }
}

/** Whether installing the same files with `scope` changes where the plugin applies. */
function finishScopeOnly(previous: LockEntry, scope: "user" | { project: string }): boolean {
  if (!previous.projects) return false;
  return scope === "user" || !previous.projects.includes(scope.project);
}

function describeVersion(entry: { version?: string | undefined; resolved?: string | undefined }): string {
  // An npm package's resolved version is its manifest's version too: said once.
  const parts = [...new Set([entry.version, entry.resolved && /^[0-9a-f]{40}$/.test(entry.resolved) ? entry.resolved.slice(0, 12) : entry.resolved].filter(Boolean))];
  return parts.length > 0 ? parts.join(", ") : "no version";
}
