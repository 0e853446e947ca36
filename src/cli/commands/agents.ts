/**
 * `awl agents`: the sub-agent definitions in effect here (docs/agents.md): name, where it is defined, its tools and
 * model, its description; then the files that were not used and why (malformed, a name defined twice).
 */
import { loadAgentDefinitions, type AgentCatalog, type AgentDefinition } from "../../agents/definitions.js";
import { isProjectTrusted } from "../../permissions/setup.js";
import { EXIT } from "../exit-codes.js";
import { displayPath, parseCommandArgs, processIO, usageError, type CommandIO } from "./extension-host.js";

export const AGENTS_USAGE = `usage: awl agents [--json] [--trust-project]

Lists the sub-agents the task tool can start (docs/agents.md): the built-in general-purpose
agent and the definitions in .awl/agents/ and .claude/agents/ (once the folder is trusted)
and ~/.config/awl/agents/, with where each is defined, its tools (all: the parent's), its
model (inherit: the parent's) and description; then the files not used, and why.
`;

export async function run(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const parsed = parseCommandArgs(argv);
  if (!parsed.ok) return usageError(io, "agents", parsed.message);
  if (parsed.values.help) return io.stdout(AGENTS_USAGE), EXIT.ok;
  if (parsed.positionals.length > 0) return usageError(io, "agents", `unexpected argument "${parsed.positionals[0]}"`);
  const cwd = process.cwd();
  const trusted = await isProjectTrusted(cwd, process.env, parsed.values["trust-project"] === true);
  const catalog = await loadAgentDefinitions({ cwd, trusted, env: process.env });
  if (parsed.values.json) {
    io.stdout(`${JSON.stringify({ agents: catalog.agents.map(agentJSON), problems: catalog.problems }, null, 2)}\n`);
    return EXIT.ok;
  }
  io.stdout(agentsText(catalog));
  return EXIT.ok;
}

function agentJSON(a: AgentDefinition): Record<string, unknown> {
  return { name: a.name, source: a.source, file: a.file, tools: a.tools ?? null, model: a.model ?? "inherit", description: a.description, prompt_bytes: Buffer.byteLength(a.prompt) };
}

/** The listing as text (also what `/agents` shows). */
export function agentsText(catalog: AgentCatalog): string {
  const lines: string[] = [];
  for (const a of catalog.agents) {
    const where = a.source === "built-in" ? "built-in" : `${a.source} ${displayPath(a.file)}`;
    lines.push(`${a.name}  (${where})`);
    lines.push(`  tools: ${a.tools ? a.tools.join(", ") || "none" : "all"} · model: ${a.model ?? "inherit"}`);
    lines.push(`  ${a.description.replace(/\s+/g, " ")}`);
  }
  if (catalog.problems.length > 0) {
    lines.push("", "not used:");
    for (const p of catalog.problems) lines.push(`  ${p.message}`);
  }
  return `${lines.join("\n")}\n`;
}
