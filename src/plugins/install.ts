/**
 * Installing and updating a plugin, in two steps so the user can review in between (docs/plugins.md,
 * "Review"): {@link prepareInstall} fetches the source into a staging folder, reads the package and its digest
 * and summarizes what it brings, running nothing of it; {@link finishInstall} puts it in place and records it
 * in the lock file; {@link discardInstall} leaves everything as it was.
 */
import { rmSync } from "node:fs";
import { fetchSource, type FetchedSource } from "./fetch-source.js";
import { readPluginPackage, type PluginPackage } from "./manifest.js";
import { PluginFormatError } from "./plugin-json.js";
import { packageContent, type PackageContent } from "./package-files.js";
import { commitInstall, newStaging, packageDir, pluginDataDir, readLock, type LockEntry } from "./store.js";
import { summarize, type PluginSummary } from "./summary.js";

/** A fetched, checked package waiting for the user's answer. */
export interface PreparedInstall {
  fetched: FetchedSource;
  pkg: PluginPackage;
  content: PackageContent;
  summary: PluginSummary;
  /** The installed plugin of the same name, if any (an update). */
  previous?: LockEntry;
  staging: string;
}

/** Fetches and reads `spec`; throws (with the staging folder removed) when it cannot be installed. */
export async function prepareInstall(spec: string, cwd: string, env: NodeJS.ProcessEnv): Promise<PreparedInstall> {
  const staging = newStaging(env);
  let fetched: FetchedSource | undefined;
  try {
    fetched = await fetchSource(spec, staging, cwd, env);
    const pkg = withSourcePaths(readPluginPackage(fetched.root), fetched);
    const content = packageContent(fetched.root);
    const places = { name: pkg.name, layout: pkg.layout, root: packageDir(env, pkg.name), data: pluginDataDir(env, pkg.name) };
    const summary = summarize(pkg, content, places, env);
    const previous = readLock(env).plugins[pkg.name];
    return { fetched, pkg, content, summary, ...(previous && { previous }), staging };
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (fetched && error instanceof PluginFormatError) throw new PluginFormatError(sourcePaths(error.message, fetched));
    throw error;
  }
}

/**
 * `text` naming the package's files where the user knows them, not in the staging folder: below the folder a
 * local folder was installed from, otherwise by their path in the package.
 */
function sourcePaths(text: string, fetched: FetchedSource): string {
  return text.split(`${fetched.root}/`).join(fetched.kind === "path" ? `${fetched.source}/` : "");
}

function withSourcePaths(pkg: PluginPackage, fetched: FetchedSource): PluginPackage {
  return { ...pkg, notices: pkg.notices.map((notice) => sourcePaths(notice, fetched)) };
}

/**
 * Installs the prepared package (an update keeps the plugin's on/off state and its data folder). `scope`: `"user"`
 * for every folder; `{ project }` for that folder too (a plugin installed for the user stays so); absent: as it
 * was installed (a new one: for the user).
 */
export function finishInstall(prepared: PreparedInstall, env: NodeJS.ProcessEnv, scope?: "user" | { project: string }): LockEntry {
  const previous = prepared.previous;
  const projects =
    scope === "user" || (previous && !previous.projects) ? undefined : scope === undefined ? previous?.projects : [...new Set([...(previous?.projects ?? []), scope.project])];
  const { fetched, pkg, content, summary } = prepared;
  const entry: LockEntry = {
    name: pkg.name,
    source: fetched.source,
    kind: fetched.kind,
    ...(fetched.resolved !== undefined && { resolved: fetched.resolved }),
    ...(pkg.version !== undefined && { version: pkg.version }),
    layout: pkg.layout,
    digest: content.digest,
    files: content.files,
    bytes: content.bytes,
    enabled: prepared.previous?.enabled ?? true,
    ...(projects && { projects }),
    installed_at: new Date().toISOString(),
    summary,
  };
  try {
    commitInstall(env, fetched.root, entry);
  } finally {
    rmSync(prepared.staging, { recursive: true, force: true });
  }
  return entry;
}

/** Drops the prepared package: nothing was installed. */
export function discardInstall(prepared: PreparedInstall): void {
  rmSync(prepared.staging, { recursive: true, force: true });
}
