/**
 * `awl mcp list|add|remove|approve`: the MCP servers of awl's config file (user) and of the project's
 * `.mcp.json`, edited like `claude mcp add` (docs/mcp.md). Edits keep the file's other keys and are atomic.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { configFilePath } from "../../config/config-file.js";
import { editConfigFile, editJsonFile } from "../../config/write.js";
import { approvalOf, rememberApproval } from "../../extensions/mcp/approvals.js";
import { MCP_JSON, readMcpJson } from "../../extensions/mcp/config.js";
import { EXIT } from "../exit-codes.js";
import { openMcpForListing } from "../../runtime/mcp-tools.js";
import { processIO, usageError, type CommandIO } from "./extension-host.js";
import { mcpServerJSON, mcpServerText } from "./mcp-report.js";

export const MCP_USAGE = `usage: awl mcp list [--json] [--approve-mcp-json] [--trust-project]
       awl mcp add NAME [--project] [--env KEY=VALUE]... [--cwd DIR] -- COMMAND [ARGS...]
       awl mcp add NAME [--project] --transport http|sse [--header "Name: value"]... URL
       awl mcp remove NAME [--project]
       awl mcp approve NAME...

list     starts every configured server and shows its state, transport, tools
         and their schema cost (as awl extensions does); --trust-project reads
         this folder's .awl/config.json servers for this run, as other commands do
add      adds a server to awl's config file (~/.config/awl/config.json), or with
         --project to this project's .mcp.json (approved for this project, as you
         wrote it); values may use \${VAR} and \${VAR:-default}
remove   removes a server from the config file (or with --project from .mcp.json)
approve  approves servers of this project's .mcp.json (asked once otherwise)
`;

const FLAGS = {
  json: { type: "boolean" },
  project: { type: "boolean" },
  env: { type: "string", multiple: true },
  cwd: { type: "string" },
  transport: { type: "string" },
  header: { type: "string", multiple: true },
  "approve-mcp-json": { type: "boolean" },
  "trust-project": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function run(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof FLAGS; allowPositionals: true; args: string[] }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: FLAGS, allowPositionals: true, strict: true });
  } catch (error) {
    return usageError(io, "mcp", (error as Error).message.split(". ")[0] ?? String(error));
  }
  const { values, positionals } = parsed;
  const [verb, ...rest] = positionals;
  if (values.help || verb === undefined) return io.stdout(MCP_USAGE), values.help ? EXIT.ok : EXIT.usage;
  switch (verb) {
    case "list":
      return list(io, values.json === true, values["approve-mcp-json"] === true, values["trust-project"] === true);
    case "add":
      return add(io, rest, values);
    case "remove":
      return remove(io, rest, values.project === true);
    case "approve":
      return approve(io, rest);
    default:
      return usageError(io, "mcp", `unknown command "${verb}" (use list, add, remove or approve)`);
  }
}

async function list(io: CommandIO, json: boolean, approveProject: boolean, trustProject: boolean): Promise<number> {
  const mcp = await openMcpForListing({ approveProject, trustProject });
  try {
    const servers = mcp?.servers() ?? [];
    if (json) io.stdout(`${JSON.stringify({ mcp_servers: servers.map(mcpServerJSON) }, null, 2)}\n`);
    else io.stdout(servers.length === 0 ? `No MCP servers configured (awl mcp add NAME -- COMMAND adds one).\n` : servers.map(mcpServerText).join(""));
    return EXIT.ok;
  } finally {
    await mcp?.close();
  }
}

type Values = { project?: boolean; env?: string[]; cwd?: string; transport?: string; header?: string[] };

async function add(io: CommandIO, args: string[], values: Values): Promise<number> {
  const [name, ...command] = args;
  if (!name) return usageError(io, "mcp", "awl mcp add needs a NAME");
  if (!/^[a-zA-Z0-9_.-]{1,64}$/.test(name)) return usageError(io, "mcp", `the server name "${name}" may hold only letters, digits, ".", "_" and "-"`);
  let entry: Record<string, unknown>;
  if (values.transport !== undefined) {
    if (values.transport !== "http" && values.transport !== "sse") return usageError(io, "mcp", `--transport expects http or sse, got "${values.transport}"`);
    if (command.length !== 1) return usageError(io, "mcp", `--transport ${values.transport} needs exactly one URL`);
    const headers: Record<string, string> = {};
    for (const header of values.header ?? []) {
      const at = header.indexOf(":");
      if (at <= 0) return usageError(io, "mcp", `--header expects "Name: value", got "${header}"`);
      headers[header.slice(0, at).trim()] = header.slice(at + 1).trim();
    }
    entry = { type: values.transport, url: command[0], ...(Object.keys(headers).length > 0 && { headers }) };
  } else {
    if (command.length === 0) return usageError(io, "mcp", "awl mcp add NAME needs the command after --, e.g. awl mcp add files -- mcp-server-filesystem ~/notes");
    const env: Record<string, string> = {};
    for (const pair of values.env ?? []) {
      const at = pair.indexOf("=");
      if (at <= 0) return usageError(io, "mcp", `--env expects KEY=VALUE, got "${pair}"`);
      env[pair.slice(0, at)] = pair.slice(at + 1);
    }
    entry = { command: command[0], ...(command.length > 1 && { args: command.slice(1) }), ...(Object.keys(env).length > 0 && { env }), ...(values.cwd !== undefined && { cwd: values.cwd }) };
  }
  const file = values.project ? join(process.cwd(), MCP_JSON) : configFilePath(process.env);
  const edited = await editServer(file, values.project === true, name, entry);
  if (!edited.ok) return fail(io, edited.message);
  if (values.project) {
    const added = readMcpJson(process.cwd(), process.env)?.servers.find((s) => s.name === name);
    if (added) rememberApproval([added], true, process.cwd(), process.env);
  }
  io.stdout(`${edited.value} MCP server "${name}" in ${file}\n`);
  return EXIT.ok;
}

async function remove(io: CommandIO, args: string[], project: boolean): Promise<number> {
  const [name, ...extra] = args;
  if (!name || extra.length > 0) return usageError(io, "mcp", "awl mcp remove takes one NAME");
  const file = project ? join(process.cwd(), MCP_JSON) : configFilePath(process.env);
  const edited = await editServer(file, project, name, undefined);
  if (!edited.ok) return fail(io, edited.message);
  io.stdout(`removed MCP server "${name}" from ${file}\n`);
  return EXIT.ok;
}

function approve(io: CommandIO, names: string[]): number {
  const project = readMcpJson(process.cwd(), process.env);
  if (!project) return fail(io, `there is no ${MCP_JSON} in ${process.cwd()}`);
  const chosen = names.length === 0 ? project.servers.filter((s) => !s.error) : project.servers.filter((s) => names.includes(s.name));
  const missing = names.filter((n) => !project.servers.some((s) => s.name === n));
  if (missing.length > 0) return fail(io, `${project.file} has no server ${missing.map((m) => `"${m}"`).join(", ")}`);
  rememberApproval(chosen, true, process.cwd(), process.env);
  for (const server of chosen) io.stdout(`approved MCP server "${server.name}" of ${project.file} (${approvalOf(server, process.cwd(), process.env)})\n`);
  return EXIT.ok;
}

/**
 * Sets (or with `entry` undefined removes) the server `name` in the `mcpServers` object of `file`: awl's config
 * file, or a project's `.mcp.json` (`project`). The file's other keys and layout stay (src/config/write.ts).
 * What it did, or an error (a removal of a server the file does not have, a file that cannot be used).
 */
async function editServer(file: string, project: boolean, name: string, entry: Record<string, unknown> | undefined): Promise<{ ok: true; value: "added" | "replaced" | "removed" } | { ok: false; message: string }> {
  let existed = false;
  try {
    const servers = (JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, "")) as { mcpServers?: unknown } | null)?.mcpServers;
    existed = typeof servers === "object" && servers !== null && Object.hasOwn(servers, name);
  } catch {
    // No file, or one the writer below reports.
  }
  if (entry === undefined && !existed) return { ok: false, message: `${file} has no MCP server of that name` };
  const edits = [{ key: ["mcpServers", name], value: entry }];
  const written = project ? await editJsonFile(file, edits) : await editConfigFile(file, edits, "user");
  if (!written.ok) return { ok: false, message: `${written.error.message}; ${written.error.hint}` };
  return { ok: true, value: entry === undefined ? "removed" : existed ? "replaced" : "added" };
}

function fail(io: CommandIO, message: string): number {
  io.stderr(`awl: ${message}\n`);
  return EXIT.usage;
}
