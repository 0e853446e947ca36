/**
 * `awl checkpoints [--json]`: the checkpoint store's folder, size and sessions; `awl checkpoints prune`: removes the
 * checkpoints of sessions that are gone or older than the retention, and what no checkpoint needs any more
 * (docs/checkpoints.md, "Pruning").
 */
import { parseArgs } from "node:util";
import { DEFAULT_RETENTION_DAYS, pruneCheckpoints } from "../../checkpoints/prune.js";
import { formatSize } from "../../checkpoints/scan.js";
import { CheckpointStore } from "../../checkpoints/store.js";
import { loadConfig } from "../../config/layers.js";
import { defaultSessionDir } from "../../session/paths.js";
import type { CheckpointSettings } from "../../runtime/checkpoint-hook.js";
import { formatUserMessage } from "../../ui/error-text.js";
import { EXIT } from "../exit-codes.js";

export const CHECKPOINTS_USAGE = `usage: awl checkpoints [--json]
       awl checkpoints prune

Shows the checkpoint store (what awl rewind restores from): its folder, the space its objects take, and the
sessions that have checkpoints. prune removes the checkpoints of sessions deleted or not used for
checkpoints.retention_days (default ${DEFAULT_RETENTION_DAYS}), then every object no remaining checkpoint needs.
awl also prunes by itself, at most once a day. Reference: docs/checkpoints.md.
`;

export async function run(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(CHECKPOINTS_USAGE);
    return EXIT.ok;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: { json: { type: "boolean" } } });
  } catch (e) {
    return usage(e instanceof Error ? e.message.split(".")[0]! : String(e));
  }
  const [command, ...rest] = parsed.positionals;
  if (rest.length > 0 || (command !== undefined && command !== "prune")) return usage(`unknown checkpoints command "${parsed.positionals.join(" ")}"`);
  const store = new CheckpointStore();
  if (command === "prune") {
    const config = await loadConfig({ env: process.env, cwd: process.cwd() });
    const days = (config.ok ? config.value.get<CheckpointSettings>("checkpoints")?.value?.retention_days : undefined) ?? DEFAULT_RETENTION_DAYS;
    const pruned = pruneCheckpoints(store, defaultSessionDir(), days);
    process.stdout.write(`Removed the checkpoints of ${pruned.sessions} session(s) and ${pruned.objects} object(s), ${formatSize(pruned.bytes)}.\n`);
    return EXIT.ok;
  }
  let objects = 0;
  let bytes = 0;
  for (const object of store.objects.list()) {
    objects++;
    bytes += object.size;
  }
  const sessions = store.sessions().map((id) => ({ id, checkpoints: store.records(id).length }));
  if (parsed.values.json) {
    process.stdout.write(JSON.stringify({ dir: store.dir, objects, bytes, sessions }) + "\n");
    return EXIT.ok;
  }
  const lines = [`${store.dir}: ${objects} objects, ${formatSize(bytes)}; ${sessions.length} session(s) with checkpoints`];
  for (const s of sessions) lines.push(`  ${s.id}  ${s.checkpoints} checkpoint(s)`);
  process.stdout.write(lines.join("\n") + "\n");
  return EXIT.ok;
}

function usage(message: string): number {
  process.stderr.write(formatUserMessage({ message, hint: "awl checkpoints --help" }));
  return EXIT.usage;
}
