/**
 * Subcommands: `awl NAME ...` runs `src/cli/commands/NAME.ts`, imported only when used.
 * To add one, add a line here and a module exporting `run(argv): Promise<number>` (the exit code).
 */
export interface SubcommandModule {
  run(argv: readonly string[]): Promise<number>;
}

export interface Subcommand {
  /** e.g. "config" or "tool call NAME JSON". */
  usage: string;
  summary: string;
  load(): Promise<SubcommandModule>;
}

export const SUBCOMMANDS: Record<string, Subcommand> = {
  permissions: {
    usage: "permissions [remove N | trust | untrust]",
    summary: "list every permission rule with where it comes from; remove one; trust this folder (docs/permissions.md)",
    load: () => import("./commands/permissions.js"),
  },
  acp: { usage: "acp [flags]", summary: "serve the Agent Client Protocol on stdio, for editors (docs/acp.md)", load: () => import("./commands/acp.js") },
  config: { usage: "config", summary: "show the resolved configuration and where each value came from", load: () => import("./commands/config.js") },
  sessions: {
    usage: "sessions [--here] [--json]",
    summary: "list saved sessions; `sessions export ID --format md|json` prints one",
    load: () => import("./commands/sessions.js"),
  },
  checkpoints: {
    usage: "checkpoints [--json] | prune",
    summary: "show the checkpoint store's size and sessions; prune old sessions' checkpoints (docs/checkpoints.md)",
    load: () => import("./commands/checkpoints.js"),
  },
  agents: { usage: "agents [--json]", summary: "list the sub-agents the task tool can start, and definition files not used (docs/agents.md)", load: () => import("./commands/agents.js") },
  rewind: {
    usage: "rewind [SESSION] [--to N --code|--conversation|--both] [--yes]",
    summary: "restore the files and/or the conversation as they were before one of a session's prompts (docs/checkpoints.md)",
    load: () => import("./commands/rewind.js"),
  },
  tools: { usage: "tools [--json]", summary: "list every tool: its extension, file:line and description; then problems", load: () => import("./commands/tools.js") },
  tool: { usage: "tool call NAME 'JSON'", summary: "run one tool handler directly, no model (docs/extension-api.md)", load: () => import("./commands/tool.js") },
  extensions: {
    usage: "extensions [--json] | enable|disable NAME | new NAME",
    summary: "list every extension and MCP server (state, metadata, tools, errors); switch one on or off; write a new one",
    load: () => import("./commands/extensions.js"),
  },
  hooks: {
    usage: "hooks [--json]",
    summary: "list every hook (Lua awl.on handlers and command hooks): event, matcher, file:line, state (docs/hooks.md)",
    load: () => import("./commands/hooks.js"),
  },
  skills: {
    usage: "skills [--json]",
    summary: "list the Agent Skills and prompt commands found: source, size, state, why one is refused (docs/skills.md)",
    load: () => import("./commands/skills.js"),
  },
  install: { usage: "install SOURCE [--yes]", summary: "install a plugin from git:URL[@ref], npm:NAME, a folder or a .tgz, after showing what it brings (docs/plugins.md)", load: () => import("./commands/install.js") },
  plugins: {
    usage: "plugins [--json] | enable|disable|remove NAME | check [DIR] | new NAME",
    summary: "list the installed plugins (version, source, state); switch one on or off; check or start a plugin folder",
    load: () => import("./commands/plugins.js"),
  },
  update: { usage: "update [NAME[@REF]] [--yes]", summary: "fetch installed plugins again, show what changes and ask (docs/plugins.md)", load: () => import("./commands/update.js") },
  remove: { usage: "remove NAME", summary: "remove an installed plugin with its data folder (docs/plugins.md)", load: () => import("./commands/remove.js") },
  models: {
    usage: "models [--provider P] [--json] | --refresh",
    summary: "list the models awl knows (window, output limit, prices, capabilities) with the server's own; refresh the catalogue from models.dev",
    load: () => import("./commands/models.js"),
  },
  login: {
    usage: "login [PROVIDER] [--headless]",
    summary: "sign in to a subscription (copilot: GitHub Copilot; chatgpt: ChatGPT) instead of an API key; list the sign-ins (docs/providers.md)",
    load: () => import("./commands/login.js"),
  },
  logout: { usage: "logout [PROVIDER]", summary: "remove a sign-in (copilot, chatgpt; all without PROVIDER) from the keychain and awl's files", load: () => import("./commands/logout.js") },
  mcp: { usage: "mcp list|add|remove|approve", summary: "list the MCP servers, add or remove one in the config (docs/mcp.md)", load: () => import("./commands/mcp.js") },
};
