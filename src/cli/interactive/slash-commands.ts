/**
 * Slash commands of the interactive mode: the registry. Each is one entry in `SLASH_COMMANDS`; other parts of awl
 * add theirs to the table (`/resume` for sessions, `/cost` for usage), and what arrives at run time (an
 * extension's `awl.register_command`) through `registerSlashCommand`. They run between turns, never during one.
 * Names are matched in any case; Tab completes them; `/help` lists them, wrapped to the terminal's width.
 */
import { resumeCommand, sessionsCommand } from "../session-history.js";
import { costReport } from "../../usage/meter.js";
import { displayWidth } from "../../ui/output/width.js";
import { clearCommand, exportCommand, newCommand } from "./session-commands.js";
import { agentsCommand, jobsCommand, toolsCommand } from "./info-commands.js";
import { permissionCommands } from "./permission-commands.js";
import { compactionText } from "../../ui/output/notices.js";
import type { Runtime } from "../../runtime/runtime.js";
import { forkCommand, rewindCommand, treeCommand } from "./rewind-commands.js";
import type { SlashCommand } from "./slash-command.js";

export const SLASH_COMMANDS: SlashCommand[] = [
  {
    name: "help",
    summary: "list the commands and keys",
    run: (_args, { runtime, print }) => print(slashHelp(process.stdout.columns ?? 80, runtime)),
  },
  {
    name: "model",
    args: "[PROVIDER] NAME",
    summary: "use another model (and provider) from the next turn on; no argument: the current one and the models the server offers",
    run: async (args, { runtime, print }) => {
      const words = args.split(/\s+/).filter(Boolean);
      const current = runtime.providerSettings;
      if (words.length === 0) {
        const [{ listServerModels }, list] = await Promise.all([import("../../providers/list-models.js"), import("../../usage/model-list.js")]);
        const offered = await listServerModels(current);
        // The server's models with the catalogue's figures; a server that lists none: the catalogue's for it.
        const rows = list.modelRows(list.catalogueProviderFor(current), offered?.length ? offered : undefined).filter((r) => !offered?.length || r.offered);
        const width = Math.max(0, ...rows.map((r) => r.id.length));
        const lines = rows.map((r) => {
          const figures = list.modelFiguresText(r);
          return `  ${figures ? `${r.id.padEnd(width)}  ${figures}` : r.id}${r.id === current.model ? "  (current)" : ""}`;
        });
        const listed = offered?.length
          ? [`the server offers (${offered.length}):`, ...lines, "/model NAME switches; awl models lists prices in full"]
          : rows.length > 0
            ? [`the server does not list its models; the catalogue knows (${rows.length}):`, ...lines, "/model NAME switches"]
            : ["the server does not list its models; /model NAME switches"];
        return print([`model: ${current.provider} ${current.model}`, ...listed].join("\n"));
      }
      if (words.length > 2) return print("usage: /model [PROVIDER] NAME, e.g. /model gpt-4o or /model anthropic claude-sonnet-4-5");
      const [provider, model] = words.length === 2 ? [words[0], words[1]!] : [undefined, words[0]!];
      const switched = await runtime.switchModel(model, provider);
      if (!switched.ok) return print(`cannot switch: ${switched.error.message} (${switched.error.hint})`);
      print(`model: ${switched.value.provider} ${switched.value.model} (from the next turn; the conversation is kept)`);
    },
  },
  clearCommand,
  newCommand,
  resumeCommand,
  sessionsCommand,
  exportCommand,
  rewindCommand,
  treeCommand,
  forkCommand,
  toolsCommand,
  agentsCommand,
  jobsCommand,
  ...permissionCommands,
  {
    name: "reload",
    summary: "find and load every extension again now (their discover_tools handlers run again)",
    run: async (_args, { runtime, print }) => {
      const lua = runtime.hosts.lua;
      if (!lua) return print("no extensions to reload");
      // The tool set's reload listener prints what changed; a reload that changed no tool says so here.
      const report = await lua.reload();
      if (report.extensions.length === 0) print(`reloaded ${lua.discovery.extensions.length} extensions (nothing changed)`);
    },
  },
  {
    name: "compact",
    args: "[INSTRUCTIONS]",
    summary: "summarise the conversation so far to free context (the last turns are kept; the session file keeps everything)",
    run: async (args, { runtime, print }) => {
      const outcome = await runtime.compact(args.trim() || undefined);
      if (!outcome) return print("compaction is not available here");
      print(compactionText(outcome).trimEnd());
    },
  },
  {
    name: "extensions",
    summary: "list the Lua extensions and the MCP servers: state, tools, errors, schema cost",
    run: async (_args, { runtime, print }) => {
      // The MCP servers' set-up may still be under way (it waits for the prompt): the list waits for it.
      const [{ reportText }, { mcpServerText }, mcp] = await Promise.all([import("../commands/extensions.js"), import("../commands/mcp-report.js"), runtime.mcpServers()]);
      const lua = runtime.hosts.lua;
      const text = [...(lua ? lua.extensions().map((r) => reportText(r, lua)) : []), ...(mcp?.servers().map(mcpServerText) ?? [])].join("");
      print(text === "" ? "No extensions and no MCP servers." : text.trimEnd());
    },
  },
  {
    name: "hooks",
    summary: "list the hooks of this session (Lua awl.on handlers and command hooks): event, matcher, file:line, state",
    run: async (_args, { runtime, print }) => {
      const [{ hooksText }, { displayPath }] = await Promise.all([import("../../hooks/listing.js"), import("../commands/extension-host.js")]);
      const listing = runtime.eventHooks?.listing() ?? { entries: [], problems: [] };
      print(hooksText(listing.entries, listing.problems, displayPath).trimEnd());
    },
  },
  {
    name: "plugins",
    args: "[enable|disable NAME]",
    summary: "list the installed plugins (version, source, state); switch one on or off for the next start",
    run: async (args, { print }) => {
      const { pluginRows, pluginsText, switchText } = await import("../commands/plugins.js");
      const [verb, name, ...more] = args.trim().split(/\s+/).filter(Boolean);
      if (verb === undefined) {
        const listed = pluginRows(process.env);
        return print("error" in listed ? listed.error : `${pluginsText(listed.rows)}awl install SOURCE (in a shell) installs one after its review.`);
      }
      if ((verb !== "enable" && verb !== "disable") || name === undefined || more.length > 0) return print("usage: /plugins [enable|disable NAME]");
      print(switchText(process.env, name, verb === "enable"));
    },
  },
  {
    name: "skills",
    summary: "list the Agent Skills and prompt commands: source, size, state, why one is refused",
    run: async (_args, { runtime, print }) => {
      const { skillsText, commandsText } = await import("../commands/skills.js");
      const commands = runtime.promptCommands;
      print(`${skillsText(runtime.skills?.skills ?? [])}${commands ? await commandsText(commands) : ""}`.trimEnd());
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
    aliases: ["quit"],
    summary: "leave awl (Ctrl-D does the same)",
    run: (_args, { exit }) => exit(),
  },
];

/** The keys of the prompt, for /help (docs/cli.md, "Interactive mode"). */
const KEYS: [string, string][] = [
  ["Enter", "send the prompt (a turn running: queue it for after the turn)"],
  ["Alt-Enter, \\ Enter", "a new line in the prompt (Shift-Enter and Ctrl-J too where the terminal sends them); a paste keeps its lines"],
  ["Ctrl-C, Esc", "cancel the running turn; at the prompt Ctrl-C clears the line, twice on an empty line exits"],
  ["Esc Esc", "on an empty prompt: rewind (as /rewind)"],
  ["Ctrl-D", "exit (on an empty prompt)"],
  ["Up, Down", "move between lines; past the first or last line, the prompts sent before"],
  ["Ctrl-R", "search the prompts sent before, in every directory: a list narrowed as you type, Enter puts one in"],
  ["Tab", "complete a slash command, or a file after @"],
  ["Shift-Tab", "next permission mode: default → accept-edits → plan (read tools only; the model ends with a plan to approve)"],
  ["@path", "in a prompt: the file's text (an image: the image) goes with it"],
  ["!command", "a prompt starting with ! runs the rest in the shell; its output goes with the next prompt"],
  ["Ctrl-O, Alt-O", "print the last tool result expanded (Alt-O: all of the last turn's), again below the output"],
  ["Ctrl-Z", "suspend awl (fg brings it back)"],
];

/**
 * Adds a command at run time (an extension's); a name or alias already taken is refused with the reason, so a
 * built-in is never replaced silently.
 */
export function registerSlashCommand(command: SlashCommand): string | undefined {
  const names = [command.name, ...(command.aliases ?? [])].map((n) => n.toLowerCase());
  const bad = names.find((n) => !/^[a-z0-9][a-z0-9_:.-]*$/.test(n));
  if (bad !== undefined) return `"/${bad}" is not a command name (letters, digits, _ : . -)`;
  const taken = names.find((n) => SLASH_COMMANDS.some((c) => c.name === n || c.aliases?.includes(n)));
  if (taken !== undefined) return `"/${taken}" is already a command`;
  SLASH_COMMANDS.push({ ...command, name: names[0]!, aliases: names.slice(1) });
  return undefined;
}

/** Whether a built-in command (or one added by `registerSlashCommand`) has this name or alias. */
function builtIn(name: string): boolean {
  return SLASH_COMMANDS.some((c) => c.name === name || c.aliases?.includes(name));
}

/** A command `/help` lists and Tab completes that src/runtime/prompt-invocation.ts runs (not one of {@link SLASH_COMMANDS}). */
export type ListedCommand = Pick<SlashCommand, "name" | "args" | "summary" | "aliases">;

/**
 * The commands a prompt can name besides awl's own (src/runtime/prompt-invocation.ts runs them), after the built-in ones: the
 * Markdown prompt commands (docs/commands.md), the skills (docs/skills.md) and the extensions' commands
 * (`awl.register_command`); a name a built-in has stays the built-in's (`/help` says which were left out).
 */
export function invocableCommands(runtime: Pick<Runtime, "hosts" | "promptCommands" | "skills"> | undefined): ListedCommand[] {
  const out: ListedCommand[] = [];
  const add = (command: ListedCommand): void => {
    if (!builtIn(command.name) && !out.some((c) => c.name === command.name)) out.push(command);
  };
  for (const c of runtime?.promptCommands?.offered() ?? []) add({ name: c.name, summary: `prompt command (${c.source.label})` });
  for (const s of runtime?.skills?.skills ?? []) if (s.state === "offered") add({ name: s.name, summary: `skill: ${s.fields!.description}` });
  for (const c of runtime?.hosts.lua?.commands() ?? []) add({ name: c.name, summary: `${c.description || "(no description)"} (extension ${c.extension})` });
  return out;
}

/**
 * The command list and keys, each description wrapped at words to `columns` under its own column; with a
 * runtime, the prompt commands, skills and extensions' commands too.
 */
export function slashHelp(columns: number, runtime?: Pick<Runtime, "hosts" | "promptCommands" | "skills">): string {
  const all: ListedCommand[] = [...SLASH_COMMANDS, ...invocableCommands(runtime)];
  const commands = all.map((c) => [`/${[c.name, ...(c.aliases ?? [])].join(", /")}${c.args ? ` ${c.args}` : ""}`, c.summary] as [string, string]);
  const left = (runtime?.hosts.lua?.commands() ?? []).filter((c) => builtIn(c.name));
  const notes = left.map((c) => `  (/${c.name} of the extension ${c.extension}, ${c.file}:${c.line}, is not added: awl has a command of that name)`);
  return ["commands:", ...table(commands, columns), ...notes, "keys:", ...table(KEYS, columns)].join("\n");
}

/** Two columns: names, then text wrapped at words; narrow terminals put the text under the name. */
function table(rows: readonly [string, string][], columns: number): string[] {
  const nameWidth = Math.min(26, Math.max(...rows.map(([name]) => displayWidth(name))));
  const width = Math.max(20, columns - 1);
  const textColumn = 2 + nameWidth + 2;
  const narrow = width - textColumn < 24;
  const lines: string[] = [];
  for (const [name, text] of rows) {
    const indent = narrow ? 4 : textColumn;
    const wrapped = wrapWords(text, width - indent);
    if (narrow) lines.push(`  ${name}`, ...wrapped.map((l) => `${" ".repeat(indent)}${l}`));
    else {
      const pad = Math.max(0, nameWidth - displayWidth(name));
      const first = displayWidth(name) > nameWidth ? [`  ${name}`, `${" ".repeat(indent)}${wrapped[0]}`] : [`  ${name}${" ".repeat(pad)}  ${wrapped[0]}`];
      lines.push(...first, ...wrapped.slice(1).map((l) => `${" ".repeat(indent)}${l}`));
    }
  }
  return lines;
}

/** `text` in lines of at most `width` columns, broken at spaces (a word wider than a line stands alone). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== "" && displayWidth(line) + 1 + displayWidth(word) > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/** The command a line names (any case, spaces allowed after the slash), with the rest of the line as its arguments. */
export function findSlashCommand(line: string, extra: readonly SlashCommand[] = []): { command: SlashCommand; args: string } | { unknown: string } {
  const match = /^\/\s*(\S+)\s*(.*)$/s.exec(line.trim());
  const name = (match?.[1] ?? "").toLowerCase();
  const command = [...SLASH_COMMANDS, ...extra].find((c) => c.name === name || c.aliases?.includes(name));
  return command ? { command, args: match?.[2] ?? "" } : { unknown: name };
}

/** Tab completion: the commands a prompt that is a `/` and the start of a name can become (`/he` → `/help `). */
export function completeSlashCommand(text: string, extra: readonly ListedCommand[] = []): string[] {
  const match = /^\/(\S*)$/.exec(text);
  if (!match) return [];
  const start = match[1]!.toLowerCase();
  const names = [...SLASH_COMMANDS, ...extra].flatMap((c) => [c.name, ...(c.aliases ?? [])]);
  return names.filter((name) => name.startsWith(start)).map((name) => `/${name} `);
}
