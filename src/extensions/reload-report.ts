/** What a reload changed, per extension, and the line the user reads about it (hot reload, SPEC §4). */
import type { RegisteredTool } from "../tools/registry.js";

/** One extension a reload touched. */
export interface ExtensionReload {
  name: string;
  /** `failed`: the new version was refused; a previous version, if there was one, keeps serving. */
  change: "added" | "changed" | "removed" | "failed";
  /** Tool names, sorted. `changed`: same name, another description, schema or setting. */
  added: string[];
  removed: string[];
  changed: string[];
  /** For `failed`: why, with file and line where known. */
  error?: string;
  /** For `failed`: whether an earlier version keeps serving. */
  kept?: boolean;
}

/** A reload: the extensions it touched, in name order (empty when nothing had changed). */
export interface ReloadReport {
  extensions: ExtensionReload[];
}

/** The tool-level difference between an extension's tools before and after. */
export function toolChanges(before: readonly RegisteredTool[], after: readonly RegisteredTool[]): Pick<ExtensionReload, "added" | "removed" | "changed"> {
  const old = new Map(before.map((t) => [t.name, t]));
  const now = new Map(after.map((t) => [t.name, t]));
  const sorted = (names: Iterable<string>) => [...names].sort();
  return {
    added: sorted([...now.keys()].filter((n) => !old.has(n))),
    removed: sorted([...old.keys()].filter((n) => !now.has(n))),
    changed: sorted([...now.keys()].filter((n) => old.has(n) && !sameTool(old.get(n)!, now.get(n)!))),
  };
}

function sameTool(a: RegisteredTool, b: RegisteredTool): boolean {
  return (
    a.description === b.description &&
    a.schema === b.schema &&
    a.parallel === b.parallel &&
    a.timeout_ms === b.timeout_ms &&
    a.has_render === b.has_render &&
    a.has_available === b.has_available
  );
}

/**
 * What the user reads: one line for what was reloaded (`reloaded weather (+forecast ~get_weather), notes (tools
 * unchanged)`), then one line per refused version with its error. No lines when nothing changed.
 */
export function reloadLines(report: ReloadReport): string[] {
  const done = report.extensions.filter((e) => e.change !== "failed");
  const lines: string[] = [];
  const moved = done.filter((e) => e.change !== "changed" || e.added.length + e.removed.length + e.changed.length > 0);
  const still = done.filter((e) => !moved.includes(e)).map((e) => e.name);
  const parts = moved.map((e) => {
    const tools = [...e.added.map((n) => `+${n}`), ...e.removed.map((n) => `-${n}`), ...e.changed.map((n) => `~${n}`)].join(" ");
    return `${e.name}${e.change === "changed" ? "" : ` ${e.change}`} (${tools || "no tools"})`;
  });
  if (still.length > 0 && still.length <= 3) parts.push(`${still.join(", ")} (tools unchanged)`);
  else if (still.length > 3) parts.push(`${still.length}${moved.length > 0 ? " more" : ""} extensions (tools unchanged)`);
  if (parts.length > 0) lines.push(`reloaded ${parts.join(", ")}`);
  for (const e of report.extensions.filter((x) => x.change === "failed")) {
    const kept = e.kept ? "the previous version keeps serving" : "it has no tools until fixed";
    lines.push(`extension "${e.name}" not reloaded (${kept}): ${e.error ?? "unknown error"}`);
  }
  return lines;
}
