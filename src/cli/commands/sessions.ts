/**
 * `awl sessions [--here] [--json]`: the saved sessions, most recent first.
 * `awl sessions export ID [--format md|json]`: one session as a Markdown transcript or as JSON, on stdout.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { exportSession, type ExportFormat } from "../../session/export.js";
import { SessionStore } from "../../session/store.js";
import type { SessionSummary } from "../../session/summary.js";
import { formatUserMessage } from "../../ui/error-text.js";
import { localTime } from "../../ui/output/time-text.js";
import { EXIT } from "../exit-codes.js";
import { oneLine } from "../../ui/output/tool-block.js";
import { loadConfig, where } from "../../config/layers.js";
import { resolveModelInfo, type ModelOverride } from "../../usage/catalogue.js";
import { takeCatalogueWarning } from "../../usage/catalogue-store.js";
import { bucketsCost, formatUsd, usdToPico } from "../../usage/cost.js";
import { parseModelOverrides } from "../../usage/model-overrides.js";

export const SESSIONS_USAGE = `usage: awl sessions [--here] [--json]
       awl sessions export ID [--format md|json] [--all-branches]

Lists the saved sessions, most recent first: id, last update, messages, tokens, cost, directory and first
prompt (--here: this directory's only; --json: an array of objects). \`export\` prints one session (an id or
a unique prefix) as a Markdown transcript (md, the default) or as JSON: its branch in use, or every branch
with --all-branches. Continue one with awl -r ID, or
pick one with awl -r alone. Reference: docs/sessions.md.
`;

export async function run(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(SESSIONS_USAGE);
    return EXIT.ok;
  }
  return argv[0] === "export" ? exportCommand(argv.slice(1)) : listCommand(argv);
}

function parse(argv: readonly string[], options: ParseArgsConfig["options"]): ReturnType<typeof parseArgs> | undefined {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (e) {
    usage(e instanceof Error ? e.message.split(".")[0]! : String(e));
    return undefined;
  }
}

function usage(message: string): number {
  process.stderr.write(formatUserMessage({ message, hint: "usage: awl sessions [--here] [--json] | awl sessions export ID [--format md|json] (awl sessions --help)" }));
  return EXIT.usage;
}

async function listCommand(argv: readonly string[]): Promise<number> {
  const parsed = parse(argv, { here: { type: "boolean" }, json: { type: "boolean" } });
  if (!parsed) return EXIT.usage;
  if (parsed.positionals.length > 0) return usage(`unknown sessions command "${parsed.positionals[0]}"`);
  const store = new SessionStore();
  const listed = store.list(parsed.values.here ? { cwd: process.cwd() } : {});
  if (!listed.ok) {
    process.stderr.write(formatUserMessage({ message: listed.error.message, hint: "check the sessions folder" }));
    return EXIT.error;
  }
  for (const warning of listed.value.warnings) process.stderr.write(`awl: ${warning.message}\n`);
  const sessions = listed.value.sessions;
  const costOf = await sessionCoster();
  if (parsed.values.json) {
    const withCost = sessions.map((s) => {
      const cost = costOf(s);
      return { ...s, cost_usd: "cost_usd" in cost ? Number(cost.cost_usd) : null };
    });
    process.stdout.write(JSON.stringify(withCost) + "\n");
  } else if (sessions.length === 0) {
    process.stderr.write(`no saved sessions${parsed.values.here ? ` for ${process.cwd()}` : ""} in ${store.dir}\n`);
  } else {
    process.stdout.write(table(sessions, costOf));
  }
  return EXIT.ok;
}

function exportCommand(argv: readonly string[]): number {
  const parsed = parse(argv, { format: { type: "string" }, "all-branches": { type: "boolean" } });
  if (!parsed) return EXIT.usage;
  const format = (parsed.values.format as string | undefined) ?? "md";
  if (format !== "md" && format !== "json") return usage(`--format expects md or json, got "${format}"`);
  const [id, ...rest] = parsed.positionals;
  if (id === undefined || rest.length > 0) return usage("name one session to export: awl sessions export ID");
  const loaded = new SessionStore().load(id);
  if (!loaded.ok) {
    const missing = loaded.error.kind === "not_found" || loaded.error.kind === "ambiguous";
    process.stderr.write(formatUserMessage(missing ? { message: loaded.error.message } : { message: loaded.error.message, hint: "the file is named above" }));
    return missing ? EXIT.usage : EXIT.error;
  }
  for (const warning of loaded.value.warnings) process.stderr.write(`awl: ${warning.message}\n`);
  process.stdout.write(exportSession(loaded.value, format as ExportFormat, { allBranches: parsed.values["all-branches"] === true }));
  return EXIT.ok;
}

type SessionCoster = (s: SessionSummary) => ReturnType<typeof bucketsCost>;

/** Prices sessions with the catalogue and the config files' `models` corrections (a bad file: the catalogue alone, with a warning). */
async function sessionCoster(): Promise<SessionCoster> {
  let overrides: Record<string, ModelOverride> = {};
  const read = await loadConfig({ env: process.env, cwd: process.cwd() });
  const models = read.ok ? read.value.get("models") : undefined;
  const parsed = read.ok ? parseModelOverrides(models?.value, models ? where(models.source) : read.value.paths.user) : read;
  if (parsed.ok) overrides = parsed.value;
  else process.stderr.write(`awl: ${parsed.error.message}; costs use the catalogue alone\n`);
  const catalogueWarning = takeCatalogueWarning();
  if (catalogueWarning) process.stderr.write(`awl: ${catalogueWarning}\n`);
  return (s) => bucketsCost(s.tokens_by_model, (model) => resolveModelInfo(model, overrides));
}

/** One line per session: id, last update, messages, tokens, cost, directory, first prompt. */
function table(sessions: SessionSummary[], costOf: SessionCoster): string {
  const rows = underParents(sessions).map(({ session: s, depth }) => {
    const cost = costOf(s);
    const id = depth === 0 ? s.id : `${"  ".repeat(depth - 1)}└ ${s.id}`;
    const prompt = s.parent ? `[${s.parent.agent}] ${s.first_prompt}` : s.first_prompt;
    return [id, localTime(s.updated), String(s.messages), tokens(s), "cost_usd" in cost ? formatUsd(usdToPico(cost.cost_usd)) : "unknown", s.cwd, oneLine(prompt, 60)];
  });
  const header = ["ID", "UPDATED", "MESSAGES", "TOKENS", "COST", "DIRECTORY", "FIRST PROMPT"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ")).join("\n") + "\n";
}

/**
 * The sessions in listing order, each sub-agent's side session right under its parent (oldest first), nested as
 * deep as they go; a side session whose parent is not listed stays where it is, at the top level.
 */
export function underParents(sessions: readonly SessionSummary[]): { session: SessionSummary; depth: number }[] {
  const listed = new Set(sessions.map((s) => s.id));
  const children = new Map<string, SessionSummary[]>();
  for (const s of sessions) {
    if (!s.parent || !listed.has(s.parent.session) || s.parent.session === s.id) continue;
    const list = children.get(s.parent.session) ?? [];
    list.push(s);
    children.set(s.parent.session, list);
  }
  const out: { session: SessionSummary; depth: number }[] = [];
  const placed = new Set<string>();
  const place = (s: SessionSummary, depth: number): void => {
    if (placed.has(s.id)) return;
    placed.add(s.id);
    out.push({ session: s, depth });
    for (const child of (children.get(s.id) ?? []).sort((a, b) => a.id.localeCompare(b.id))) place(child, depth + 1);
  };
  for (const s of sessions) if (!s.parent || !listed.has(s.parent.session) || s.parent.session === s.id) place(s, 0);
  for (const s of sessions) place(s, 0); // a loop of parents (a damaged file): still listed
  return out;
}

/** Input + output tokens, cache reads and writes included, e.g. "12.3k". */
function tokens(s: SessionSummary): string {
  const u = s.tokens;
  const total = u.input_tokens + u.output_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
  return total < 1000 ? String(total) : total < 1_000_000 ? `${(total / 1000).toFixed(1)}k` : `${(total / 1_000_000).toFixed(1)}M`;
}
