/**
 * Builds the runtime a mode runs its turns through (runtime.ts): the provider, the tools, the agent, and the per-turn
 * hooks the flags ask for (sessions, checkpoints, sub-agents, `--record`).
 */
import { Agent } from "../agent/agent.js";
import type { ConfigResult } from "../config/errors.js";
import type { ConfigFileValues } from "../config/config-file.js";
import type { JobsToolSet } from "../jobs/jobs-tool-set.js";
import { Conversation } from "../model/conversation.js";
import type { Hooks } from "../hooks/dispatcher.js";
import type { ProviderError } from "../providers/errors.js";
import type { ProviderSettings } from "../providers/types.js";
import type { ToolSet } from "../tools/types.js";
import { openChatTools, type OpenedTools } from "./chat-tools.js";
import { CompositeToolSet } from "../tools/composite.js";
import { createProvider } from "./provider.js";
import { loadConfig, where, type LoadedConfig } from "../config/layers.js";
import type { PermissionSetup } from "../permissions/setup.js";
import type { PermissionToolSet } from "../permissions/tool-set.js";
import type { LuaToolSet } from "../extensions/lua-tool-set.js";
import { systemPromptFor } from "../prompt/for-cwd.js";
import { systemPromptChoice } from "./system-prompt-option.js";
import { SessionUsage } from "../usage/session-usage.js";
import { takeCatalogueWarning } from "../usage/catalogue-store.js";
import { Compactor } from "../compaction/compactor.js";
import { compactionSettings } from "../compaction/settings.js";
import { parseModelOverrides } from "../usage/model-overrides.js";

import { Runtime, type RuntimeOptions, type TurnHook } from "./runtime.js";
import type { SessionHook } from "./session-hook.js";

/**
 * Builds the runtime for the settings: provider, tools and agent, then the hooks the flags ask for.
 * Extensions (issue 4) build the ToolSet in `openChatTools` (chat-tools.ts); sessions (issue 5) add their recorder
 * to `hooks` and may replace `conversation` (resume) before the first turn.
 */
export async function buildRuntime(options: RuntimeOptions): Promise<ConfigResult<Runtime>> {
  // The tools first: without a matching registration cache their Lua worker starts now, and the rest of the runtime
  // is built while it loads the extensions on its own thread (the provider, the hooks, the sessions: none of them
  // needs the tools known). The runtime is returned once they are (the first request offers them), and so is a
  // failure: a process that exits while a worker starts can abort inside Node.
  let opened = options.tools ? undefined : options.openedTools;
  if (!options.tools && !opened) {
    const result = await openChatTools(options);
    if (!result.ok) return result;
    opened = result.value;
  }
  let known = false;
  void opened?.ready.then(() => (known = true), () => undefined);
  const building = assemble(options, opened).then((built) => {
    // Built before the tools are known: the first request's transport loads while they do, not after.
    if (!known && built.ok) loadTransportAhead(options.settings.provider.baseUrl);
    return built;
  });
  const [built] = await Promise.all([building, opened?.ready]);
  return built;
}

/** Loads node:http or node:https for the provider's URL now, so that the first request finds it loaded. */
function loadTransportAhead(baseUrl: string): void {
  let protocol: string;
  try {
    protocol = new URL(baseUrl).protocol;
  } catch {
    return; // no URL (a replay): the provider says what is wrong, if anything, when it is used
  }
  // A transport that cannot load fails the request, which says so.
  if (protocol === "http:" || protocol === "https:") void import("../providers/http.js").then((http) => http.transportFor(protocol)).catch(() => undefined);
}

/** The runtime around tools that exist, known or not yet (buildRuntime). */
async function assemble(options: RuntimeOptions, opened: OpenedTools | undefined): Promise<ConfigResult<Runtime>> {
  const created = options.provider ? undefined : await createProvider(options.settings.provider);
  let provider = options.provider;
  if (created) {
    if (!created.ok) return { ok: false, error: providerSetupError(created.error, options.settings.provider) };
    provider = created.provider;
  }
  const mcp = opened?.mcp;
  const later = opened?.laterMcp;
  const servers = mcp ?? later;
  const cwd = options.cwd ?? process.cwd();
  const reach = opened && !options.tools ? await (await import("./extension-reach.js")).openExtensionReach(cwd, options.permissions?.trusted === true) : undefined;
  const config = await configOf(options.config, cwd);
  if (!config.ok) return config;
  // The `task` tool (docs/agents.md) sits beside the extensions' tools, under the permission layer.
  const subAgents = opened && !options.tools ? await (await import("./sub-agents.js")).openSubAgents(options, config.value, cwd) : undefined;
  const parts: ToolSet[] = [];
  // Offered even when none is found yet: a skill saved later (hot reload, reach-reload.ts) is offered then.
  const skills = reach?.skills;
  // `exit_plan` (docs/permissions.md, "Plan mode"), offered while the mode is plan.
  const plan = opened && !options.tools && options.permissions ? new (await import("../permissions/exit-plan.js")).PlanToolSet(options.permissions.engine) : undefined;
  for (const part of [opened?.tools, skills, servers, subAgents?.tools, plan]) if (part) parts.push(part);
  const composite = options.tools ?? (parts.length > 1 ? new CompositeToolSet(parts) : opened?.tools);
  // Background commands (docs/std-tools.md) are served around the tools, under the permission layer.
  const jobs = opened && composite && !options.tools ? await openJobs(options, opened.tools, composite, cwd) : undefined;
  const inner = jobs ?? composite;
  const eventHooks = await hooksFor(options, opened?.tools, config.value, cwd, () => runtime);
  const permissions = inner && options.permissions ? await permissionLayer(inner, options.permissions, options.warn, eventHooks) : undefined;
  const tools = eventHooks && (permissions ?? inner) ? new (await import("../hooks/hook-tool-set.js")).HookToolSet((permissions ?? inner)!, eventHooks, permissions) : (permissions ?? inner);
  const prompt = systemPromptChoice(options.cli.flags, config.value, cwd);
  if (!prompt.ok) return prompt;
  // Made again only when the tools offered change (their advice follows them); the same tools, the same bytes.
  let made: { names: string; text: string } | undefined;
  const system = (toolNames: readonly string[]): string => {
    const names = toolNames.join("\n");
    if (made?.names !== names) made = { names, text: systemPromptFor({ cwd, env: process.env, tools: toolNames, ...prompt.value }).text };
    return made.text;
  };
  const agent = new Agent({ provider: provider!, maxSteps: options.settings.maxSteps, system, ...(tools ? { tools } : {}) });
  const models = config.value.get("models");
  const overrides = parseModelOverrides(models?.value, models ? where(models.source) : config.value.paths.user);
  if (!overrides.ok) return overrides;
  const compaction = compactionSettings(config.value.get<{ threshold_percent?: number; auto?: boolean }>("compaction")?.value);
  const usage = new SessionUsage(options.settings.provider, overrides.value);
  const catalogueWarning = takeCatalogueWarning();
  if (catalogueWarning) options.warn(catalogueWarning);
  const runtime = new Runtime(agent, options.conversation ?? new Conversation(), options.settings, options, usage);
  runtime.permissions = permissions;
  runtime.eventHooks = eventHooks;
  runtime.skills = reach?.skills;
  runtime.promptCommands = reach?.commands;
  runtime.plan = plan;
  runtime.jobs = jobs?.jobs;
  // At exit the background jobs stop (the leftover watchdog kills them however awl ends).
  if (jobs) runtime.hooks.push({ close: () => jobs.jobs.stopAll() });
  runtime.compactor = new Compactor({
    provider: () => runtime.agent.provider,
    contextWindow: async () => (await runtime.usage.ensureModelInfo()).context_window,
    thresholdPercent: compaction.thresholdPercent,
    auto: compaction.auto,
    onUsage: (spent) => runtime.usage.meter.record(spent, { context: false }),
    // Asked each time (an extension reloaded since may have added or dropped a handler); none: nothing to add.
    ...(eventHooks && { instructions: async (reason, given, signal) => (await eventHooks.compaction(reason === "manual" ? "manual" : "auto", given, signal)).join("\n\n") || undefined }),
  });
  agent.context = runtime.compactor;
  if (eventHooks) agent.requestContext = (messages, signal) => eventHooks.beforeRequest(messages, signal);
  if (opened && !options.tools) {
    runtime.hosts = later ? { lua: opened.tools, get mcp() { return later.current; } } : { lua: opened.tools, ...(mcp && { mcp }) };
    runtime.laterMcp = later;
  }

  // At exit the extensions' on_unload hooks run (time-limited), and workers still starting have started (one a
  // prewarm started that the turn never needed is given up instead, and stopped as soon as that is safe).
  if (opened) {
    const lua = opened.tools;
    runtime.hooks.push({
      close: async () => {
        await lua.unload();
        await lua.quiesce();
      },
    });
  }
  if (servers) runtime.hooks.push({ close: () => servers.close() });

  // Nothing awl prints holds a credential of the run (a 401 body echoing the key, a tool printing it).
  (await import("../ui/output/scrub-printed.js")).scrubPrinted((await import("./run-secrets.js")).runSecrets(options));
  const sessions = await sessionsFor(options, runtime);
  if (!sessions.ok) return sessions;
  if (sessions.value) runtime.hooks.push(sessions.value);
  if (subAgents) {
    subAgents.attach(runtime, sessions.value);
    runtime.hosts.agents = subAgents.tools;
  }
  // After the session hook: a checkpoint belongs to the session that hook has just started.
  const checkpoints = sessions.value ? (await import("./checkpoint-hook.js")).setupCheckpoints(runtime, sessions.value, config.value, cwd, options.warn) : undefined;
  if (checkpoints) {
    runtime.hooks.push(checkpoints);
    const events = ["tool_call", "PreToolUse", "tool_result", "PostToolUse"] as const;
    if (agent.tools) agent.tools = checkpoints.guard(agent.tools, () => events.some((e) => eventHooks?.has(e) === true));
  }
  if (sessions.value) runtime.branching = (await import("./session-branching.js")).runtimeBranching(runtime, sessions.value, checkpoints);

  const recordFile = options.cli.flags.record;
  if (recordFile) runtime.hooks.push(await recordHook(recordFile, (await import("./run-secrets.js")).runSecrets(options), options.warn));
  return { ok: true, value: runtime };
}

/** The hook that saves the conversation (session-hook.ts, loaded only then); none with `--no-session`. */
async function sessionsFor(options: RuntimeOptions, runtime: Runtime): Promise<ConfigResult<SessionHook | undefined>> {
  const flags = options.cli.flags;
  if (!flags["no-session"]) return (await import("./session-hook.js")).setupSessions(options, runtime);
  if (flags.continue || flags.resume !== undefined) return { ok: false, error: { message: "--no-session cannot be combined with -c or -r", hint: "see awl --help" } };
  return { ok: true, value: undefined };
}

/** The run's Lua and command hooks (docs/hooks.md); undefined when none can run. */
async function hooksFor(options: RuntimeOptions, lua: LuaToolSet | undefined, config: LoadedConfig, cwd: string, runtime: () => Runtime): Promise<Hooks | undefined> {
  const [{ setupHooks }, { runSecrets }, { withheldVariables }] = await Promise.all([import("../hooks/setup.js"), import("./run-secrets.js"), import("../util/secrets.js")]);
  const sandbox = options.permissions?.sandbox ? await (await import("../permissions/sandbox.js")).runSandbox(options.permissions) : undefined;
  return setupHooks({
    ...(lua && { lua }),
    config,
    cwd,
    env: process.env,
    secrets: runSecrets(options),
    // The programs awl starts get one environment: the tools' rule (util/secrets.ts childEnv), pass_env included.
    withheldEnv: withheldVariables(config.values as ConfigFileValues),
    ...(options.permissions?.config.passEnv && { passEnv: options.permissions.config.passEnv.value }),
    ...(sandbox?.ok && sandbox.value && { sandbox: sandbox.value }),
    sessionId: () => runtime().sessionId,
    warn: options.warn,
  });
}

/** The tools with background commands (`bash` with `run_in_background`), run in the sandbox when it is on. */
async function openJobs(options: RuntimeOptions, lua: LuaToolSet, tools: ToolSet, cwd: string): Promise<JobsToolSet | undefined> {
  const [{ JobTable }, { JobsToolSet }, { SecretScrubber }, { runSecrets }] = await Promise.all([
    import("../jobs/job-table.js"),
    import("../jobs/jobs-tool-set.js"),
    import("../util/secrets.js"),
    import("./run-secrets.js"),
  ]);
  const scrub = new SecretScrubber(runSecrets(options));
  // A sign-in's token refreshed later is scrubbed from the jobs' saved output too.
  (await import("../util/late-secrets.js")).onSecretsAnnounced(scrub, "add");
  const table = new JobTable({ ...lua.programs, spillDir: lua.spillDir, scrub });
  return new JobsToolSet(tools, table, cwd);
}

/** The config files read at start-up, or read now when the caller did not. */
async function configOf(config: LoadedConfig | undefined, cwd: string): Promise<ConfigResult<LoadedConfig>> {
  return config ? { ok: true, value: config } : loadConfig({ env: process.env, cwd });
}

/** The tools behind the permission layer; "always allow" saves to the project or user config file. */
async function permissionLayer(inner: ToolSet, setup: PermissionSetup, warn: (text: string) => void, hooks?: Hooks): Promise<PermissionToolSet> {
  const { PermissionToolSet } = await import("../permissions/tool-set.js");
  const { engine } = setup;
  return new PermissionToolSet(inner, engine, {
    // The config writer loads only once an answer asks to save a rule (most runs never do).
    saveRules: async (rules, scope) =>
      (await import("../permissions/save.js")).saveAllowRules(scope === "project" ? setup.projectConfigPath : setup.userConfigPath, scope, rules, engine.workspace, engine.home),
    // An untrusted folder's own rules do not count: a rule saved there would only make the next start ask for trust.
    projectRulesCount: setup.trusted,
    warn,
    // Notification hooks hear that awl waits for an answer.
    ...(hooks?.has("Notification") && { onAsk: (call: { name: string }) => hooks.notification(call.name) }),
  });
}

async function recordHook(path: string, secrets: readonly string[], warn: (text: string) => void): Promise<TurnHook> {
  const [{ ReplayRecorder }, { SecretScrubber }] = await Promise.all([import("../providers/replay/recorder.js"), import("../util/secrets.js")]);
  const recorder = new ReplayRecorder(path, new SecretScrubber(secrets));
  let failed = false;
  return {
    onMessageAppended(message) {
      const problem = recorder.record(message);
      if (problem && !failed) {
        failed = true;
        warn(problem);
      }
    },
  };
}

function providerSetupError(error: ProviderError, settings: ProviderSettings): { message: string; hint: string } {
  const hint = settings.provider === "replay" ? "check the script against docs/replay-format.md" : "check the settings (awl config shows them)";
  return { message: error.message, hint };
}
