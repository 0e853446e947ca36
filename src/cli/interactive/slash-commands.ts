/**
 * Slash commands of the interactive mode. Each is one entry in `SLASH_COMMANDS`; other parts of awl add
 * theirs here (`/resume` for sessions, `/reload` for extensions). They run between turns, never during one.
 */
import type { LineSink } from "../output/sink.js";
import type { Runtime } from "../runtime.js";
import { resumeCommand } from "../session-history.js";
import { costReport } from "../../usage/meter.js";

export interface SlashContext {
  runtime: Runtime;
  /** Writes a line of output for the user. */
  print(text: string): void;
  /** Leaves the interactive mode after this command. */
  exit(): void;
  /** The terminal, for commands that render turns (`/resume` redraws a session). */
  sink: LineSink;
}

export interface SlashCommand {
  name: string;
  /** Shown in /help after the name, e.g. "[PROVIDER] NAME". */
  args?: string;
  summary: string;
  run(args: string, context: SlashContext): void | Promise<void>;
}

export const SLASH_COMMANDS: SlashCommand[] = [
  {
    name: "help",
    summary: "list the commands",
    run: (_args, { print }) => print(slashHelp()),
  },
  {
    name: "model",
    args: "[PROVIDER] NAME",
    summary: "use another model (and provider) from the next turn on; no argument: show the current one",
    run: async (args, { runtime, print }) => {
      const words = args.split(/\s+/).filter(Boolean);
      const current = runtime.providerSettings;
      if (words.length === 0) return print(`model: ${current.provider} ${current.model}`);
      if (words.length > 2) return print("usage: /model [PROVIDER] NAME, e.g. /model gpt-4o or /model anthropic claude-sonnet-4-5");
      const [provider, model] = words.length === 2 ? [words[0], words[1]!] : [undefined, words[0]!];
      const switched = await runtime.switchModel(model, provider);
      if (!switched.ok) return print(`cannot switch: ${switched.error.message} (${switched.error.hint})`);
      print(`model: ${switched.value.provider} ${switched.value.model} (from the next turn; the conversation is kept)`);
    },
  },
  resumeCommand,
  {
    name: "extensions",
    summary: "list the Lua extensions and the MCP servers: state, tools, errors, schema cost",
    run: async (_args, { runtime, print }) => {
      const [{ reportText }, { mcpServerText }] = await Promise.all([import("../commands/extensions.js"), import("../commands/mcp-report.js")]);
      const { lua, mcp } = runtime.hosts;
      const text = [...(lua ? lua.extensions().map((r) => reportText(r, lua)) : []), ...(mcp?.servers().map(mcpServerText) ?? [])].join("");
      print(text === "" ? "No extensions and no MCP servers." : text.trimEnd());
    },
  },
  {
    name: "cost",
    summary: "tokens, cost and context use of this session and of the last turn",
    run: async (_args, { runtime, print }) => {
      // The server is asked for an unknown model's window here if it could tell (docs/cost.md).
      await runtime.usage.ensureModelInfo();
      print(costReport(runtime.usage.meter.snapshot()).trimEnd());
    },
  },
  {
    name: "exit",
    summary: "leave awl (Ctrl-D does the same)",
    run: (_args, { exit }) => exit(),
  },
];

/** The keys of the prompt, for /help (docs/cli.md, "Interactive mode"). */
const KEYS: [string, string][] = [
  ["Enter", "send the prompt (a turn running: queue it for after the turn)"],
  ["Alt-Enter, \\ Enter", "a new line in the prompt (Shift-Enter and Ctrl-J too where the terminal sends them); a paste keeps its lines"],
  ["Ctrl-C, Esc", "cancel the running turn; at the prompt Ctrl-C clears the line, twice on an empty line exits"],
  ["Ctrl-D", "exit (on an empty prompt)"],
  ["Up, Down", "move between lines; past the first or last line, the prompts sent before"],
  ["Tab", "complete a slash command"],
  ["Ctrl-Z", "suspend awl (fg brings it back)"],
];

export function slashHelp(): string {
  const commands = SLASH_COMMANDS.map((c) => `  /${`${c.name}${c.args ? ` ${c.args}` : ""}`.padEnd(24)} ${c.summary}`);
  const keys = KEYS.map(([key, what]) => `  ${key.padEnd(25)} ${what}`);
  return ["commands:", ...commands, "keys:", ...keys].join("\n");
}

/** The command a line names (any case, spaces allowed after the slash), with the rest of the line as its arguments. */
export function findSlashCommand(line: string): { command: SlashCommand; args: string } | { unknown: string } {
  const match = /^\/\s*(\S+)\s*(.*)$/s.exec(line.trim());
  const name = (match?.[1] ?? "").toLowerCase();
  const command = SLASH_COMMANDS.find((c) => c.name === name);
  return command ? { command, args: match?.[2] ?? "" } : { unknown: name };
}

/** Tab completion: the commands a prompt that is a `/` and the start of a name can become (`/he` → `/help `). */
export function completeSlashCommand(text: string): string[] {
  const match = /^\/(\S*)$/.exec(text);
  if (!match) return [];
  const start = match[1]!.toLowerCase();
  return SLASH_COMMANDS.filter((c) => c.name.startsWith(start)).map((c) => `/${c.name} `);
}
