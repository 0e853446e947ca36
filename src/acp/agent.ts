/**
 * `awl acp`: awl as an Agent Client Protocol agent (docs/acp.md). Each ACP session is an awl session with a
 * runtime of its own (the settings, tools and session file of the CLI), driven through the library session API;
 * its turns stream to the client as `session/update` notifications (updates.ts). Each session works in its own
 * folder (its `cwd`): config, trust, permissions, tools, instruction files and MCP servers are resolved against
 * it, never against the process's working directory, so one process serves sessions of several folders.
 */
import { statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import {
  agent,
  PROTOCOL_VERSION,
  RequestError,
  type AgentConnection,
  type ClientCapabilities,
  type InitializeResponse,
  type McpServer,
  type PromptResponse,
  type SessionUpdate,
  type StopReason,
  type Stream,
  type AgentContext,
  type SessionModeState,
} from "@agentclientprotocol/sdk";
import { AgentSession } from "../agent-session/agent-session.js";
import type { TurnResult } from "../agent/agent.js";
import { crashReport } from "../agent/agent.js";
import { loadSettings, type AwlSettings } from "../config/index.js";
import { newSessionId } from "../session/paths.js";
import type { MeterSnapshot } from "../usage/meter.js";
import { awlVersion } from "../version.js";
import { openChatTools } from "../runtime/chat-tools.js";
import { clientMcpServers } from "./mcp-servers.js";
import { describeProviderError } from "../ui/error-text.js";
import { settingsFlags, type CliOptions } from "../runtime/flags.js";
import { buildRuntime } from "../runtime/build-runtime.js";
import type { Runtime } from "../runtime/runtime.js";
import { SessionHook } from "../runtime/session-hook.js";
import { isPermissionMode, type PermissionMode } from "../permissions/engine.js";
import { setupRunPermissions } from "../runtime/run-permissions.js";
import { clientTextHost } from "./client-files.js";
import { askClient, sessionModes } from "./permission-ask.js";
import { reviewPlanWithClient } from "./plan-review.js";
import { askClientTrust, trustRequest, type TrustAnswer } from "./trust-ask.js";
import { promptContent } from "./prompt-content.js";
import { replaySession } from "./replay.js";
import { TurnUpdates } from "./updates.js";
import { availableCommands } from "./commands.js";
import { REWIND_COMMANDS, rewindCommandReply } from "./rewind-commands.js";
import { forkParams, listSessions } from "./session-list.js";
import { forkSession } from "../session/fork.js";
import { SessionStore } from "../session/store.js";
import { invokePrompt } from "../runtime/prompt-invocation.js";

export interface AcpAgentOptions {
  cli: CliOptions;
  /** Diagnostics (stderr): stdout carries the protocol only. */
  warn(text: string): void;
}

/** What a session is opened from (and opened again from once its folder is trusted). */
interface SessionPlan {
  id: string;
  /** The session's folder (absolute, an existing directory). */
  cwd: string;
  mcpServers: readonly McpServer[];
  /** Opened by `session/load`: the saved session is resumed. */
  resumed: boolean;
  /** Trusted for this session by the editor's answer. */
  trusted: boolean;
  /** The mode the editor chose (`session/set_mode`), kept when the session is opened again. */
  mode?: PermissionMode;
}

interface LiveSession extends SessionPlan {
  runtime: Runtime;
  session: AgentSession;
  /** The folder is not trusted and brings code or settings of its own: asked at the first prompt. */
  trustQuestion?: { folder: string; parts: string[]; extensionsDir?: string; userConfig: string };
  /** A prompt is being prepared (the trust question): another is refused, `session/cancel` aborts it. */
  preparing?: AbortController;
}

/** Ends a session for good: its turns end and are saved, its runtime's hooks close (MCP servers, jobs, checkpoints), its Lua workers stop. */
async function closeLive(live: LiveSession): Promise<void> {
  await live.session.close();
  await live.runtime.hosts.lua?.close();
}

/** JSON-RPC error codes of ACP beyond the standard ones. */
const RESOURCE_NOT_FOUND = -32002;
const INTERNAL_ERROR = -32603;

export class AcpAgent {
  private readonly sessions = new Map<string, LiveSession>();
  private clientCapabilities: ClientCapabilities = {};
  /** Config warnings said already (each once, however many sessions read that file). */
  private readonly warned = new Set<string>();

  constructor(private readonly options: AcpAgentOptions) {}

  /** Serves `stream` until it closes. */
  connect(stream: Stream): AgentConnection {
    const app = agent({ name: "awl" })
      .onRequest("initialize", ({ params }) => {
        this.clientCapabilities = params.clientCapabilities ?? {};
        return this.initializeResponse();
      })
      .onRequest("session/new", async ({ params, client }) => {
        const live = await this.open(client, params.cwd, params.mcpServers);
        advertiseCommands(client, live);
        return { sessionId: live.id, ...this.modesOf(live) };
      })
      .onRequest("session/load", async ({ params, client }) => {
        const wasOpen = this.sessions.has(params.sessionId);
        const live = await this.open(client, params.cwd, params.mcpServers ?? [], params.sessionId);
        const hook = live.runtime.hooks.find((h): h is SessionHook => h instanceof SessionHook);
        // A session open here is read again from its file: the editor gets the branch in use (after a /rewind of the
        // conversation, the rewound one), as the protocol has no way for awl to rewrite the transcript it shows.
        const reread = wasOpen && hook?.id !== undefined ? hook.store.load(hook.id) : undefined;
        const loaded = reread ? (reread.ok ? reread.value : undefined) : hook?.resumed;
        if (loaded) await replaySession(loaded, live.runtime.agent.tools, live.cwd, (update) => notify(client, live.id, update));
        advertiseCommands(client, live);
        return this.modesOf(live);
      })
      .onRequest("session/list", ({ params }) => listSessions(new SessionStore(), params.cwd ?? undefined))
      // ACP's session/fork (unstable in the protocol): the saved session's branch in use copied into a new session, opened as session/load opens one.
      .onRequest("session/fork", forkParams, async ({ params, client }) => {
        const open = this.sessions.get(params.sessionId);
        if (open?.session.busy) throw RequestError.invalidRequest(undefined, "a prompt is running in this session: fork it once the prompt has ended");
        const forked = forkSession(new SessionStore(), params.sessionId);
        if (!forked.ok) throw new RequestError(forked.error.kind === "not_found" ? RESOURCE_NOT_FOUND : INTERNAL_ERROR, forked.error.message, { sessionId: params.sessionId });
        const live = await this.open(client, params.cwd, params.mcpServers ?? [], forked.value);
        advertiseCommands(client, live);
        return { sessionId: live.id, ...this.modesOf(live) };
      })
      .onRequest("session/set_mode", ({ params, client }) => {
        const live = this.sessions.get(params.sessionId);
        if (!live) throw RequestError.sessionNotFound(params.sessionId);
        const engine = live.runtime.permissions?.engine;
        if (!engine) throw RequestError.invalidRequest(undefined, "this session has no permission modes");
        if (!isPermissionMode(params.modeId)) throw RequestError.invalidParams(undefined, `unknown mode "${params.modeId}": use ${sessionModes(engine.mode).availableModes.map((m) => m.id).join(", ")}`);
        // From the next tool call on; a call already asked about keeps its question.
        engine.mode = params.modeId;
        live.mode = params.modeId;
        if (params.modeId === "bypass") this.options.warn(`session ${live.id}: bypass mode (session/set_mode): every tool call runs without asking; only deny rules still hold`);
        notify(client, live.id, { sessionUpdate: "current_mode_update", currentModeId: engine.mode });
        return {};
      })
      .onRequest("session/prompt", async ({ params, client, signal }) => {
        const live = this.sessions.get(params.sessionId);
        if (!live) throw RequestError.sessionNotFound(params.sessionId);
        if (live.session.busy || live.preparing) throw RequestError.invalidRequest(undefined, "a prompt is already running in this session");
        const content = promptContent(params.prompt);
        if (!content.ok) throw RequestError.invalidParams(undefined, content.message);
        const ready = live.trustQuestion ? await this.settleTrust(live, client, signal) : live;
        if (!ready) return { stopReason: "cancelled" };
        if (ready !== live) advertiseCommands(client, ready);
        return this.prompt(ready, content.content, client, signal);
      })
      // ACP's session/close: the session's turn is cancelled and saved, then everything it holds goes now (its Lua
      // workers, MCP servers, checkpoint worker, background jobs), not at awl's exit; the id is unknown after.
      .onRequest("session/close", async ({ params }) => {
        const live = this.sessions.get(params.sessionId);
        if (!live) throw RequestError.sessionNotFound(params.sessionId);
        this.sessions.delete(params.sessionId);
        live.preparing?.abort();
        live.session.cancel();
        await closeLive(live);
        return {};
      })
      .onNotification("session/cancel", ({ params }) => {
        const live = this.sessions.get(params.sessionId);
        live?.preparing?.abort();
        live?.session.cancel();
      });
    return app.connect(stream);
  }

  /** Cancels every running turn, waits for them to end and be saved, then closes every session. */
  async shutdown(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    for (const live of sessions) live.session.cancel();
    await Promise.all(sessions.map(closeLive));
  }

  private initializeResponse(): InitializeResponse {
    return {
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        // session/fork is not in the stable schema's types yet: the capability is added as the protocol names it.
        sessionCapabilities: { list: {}, close: {}, ...({ fork: {} } as object) },
        mcpCapabilities: { http: true, sse: true },
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
      },
      agentInfo: { name: "awl", title: "awl", version: awlVersion() },
      authMethods: [],
    };
  }

  /** A new session in `cwd` with the client's MCP servers beside the configured ones, or the saved session `resume` continued there. */
  private async open(client: AgentContext, cwd: string, mcpServers: readonly McpServer[], resume?: string): Promise<LiveSession> {
    checkFolder(cwd);
    if (resume !== undefined) {
      const open = this.sessions.get(resume);
      if (open) return open;
    }
    // A new session is named now; its file is created by its first prompt (no empty sessions are saved).
    const live = await this.build(client, { id: resume ?? newSessionId(), cwd, mcpServers, resumed: resume !== undefined, trusted: false });
    this.sessions.set(live.id, live);
    return live;
  }

  /** The session's runtime, from the config files, trust and permissions of its own folder. */
  private async build(client: AgentContext, plan: SessionPlan): Promise<LiveSession> {
    const { id, cwd, resumed } = plan;
    const flags = { ...this.options.cli.flags, continue: false, ...(resumed && { resume: id }), ...(plan.trusted && { "trust-project": true }) };
    const cli = { ...this.options.cli, flags };
    const warn = this.options.warn;
    // Never a terminal question here: an untrusted folder's code is skipped (the editor is asked at the first prompt).
    const permissions = await setupRunPermissions(cli, { interactive: false, cwd, warn });
    if (!permissions.ok) throw new RequestError(INTERNAL_ERROR, `${permissions.error.message}; ${permissions.error.hint}`);
    const loaded = await loadSettings(process.env, settingsFlags(flags), { config: permissions.value.files });
    if (!loaded.ok) throw new RequestError(INTERNAL_ERROR, `${loaded.error.message}; ${loaded.error.hint}`);
    for (const warning of loaded.value.config.warnings) {
      if (this.warned.has(warning)) continue;
      this.warned.add(warning);
      warn(warning);
    }
    const base = { settings: loaded.value.settings, sources: loaded.value.sources, config: loaded.value.config, cli, cwd, warn, permissions: permissions.value };
    const clientServers = clientMcpServers(plan.mcpServers, cwd, process.env);
    const tools = await openChatTools(base, { interactive: false, clientServers }, clientTextHost(this.clientCapabilities, client, id));
    if (!tools.ok) throw new RequestError(INTERNAL_ERROR, `${tools.error.message}; ${tools.error.hint}`);
    const built = await buildRuntime({ ...base, openedTools: tools.value });
    if (!built.ok) {
      await tools.value.tools.close();
      throw new RequestError(resumed ? RESOURCE_NOT_FOUND : INTERNAL_ERROR, `${built.error.message}; ${built.error.hint}`, resumed ? { sessionId: id } : undefined);
    }
    const runtime = built.value;
    const hook = runtime.hooks.find((h): h is SessionHook => h instanceof SessionHook);
    if (hook && !resumed) hook.nextId = id;
    const setup = permissions.value;
    if (plan.mode !== undefined) setup.engine.mode = plan.mode;
    const live: LiveSession = { ...plan, runtime, session: new AgentSession(runtime) };
    if (setup.untrustedParts.length > 0) {
      live.trustQuestion = { folder: setup.engine.workspace, parts: setup.untrustedParts, userConfig: setup.userConfigPath, ...(setup.offer.extensionsDir && { extensionsDir: setup.offer.extensionsDir }) };
    }
    return live;
  }

  /**
   * The trust question, at the session's first prompt: the editor says whether to trust the folder; trusted, the
   * session is opened again with what the folder brings. Undefined when the prompt was cancelled meanwhile.
   */
  private async settleTrust(live: LiveSession, client: AgentContext, signal: AbortSignal): Promise<LiveSession | undefined> {
    const question = live.trustQuestion!;
    const preparing = new AbortController();
    live.preparing = preparing;
    const onAbort = (): void => preparing.abort();
    signal.addEventListener("abort", onAbort);
    try {
      const request = trustRequest(live.id, question.folder, question.parts, question.extensionsDir);
      const answer = await askClientTrust(client, request, preparing.signal);
      // A prompt cancelled meanwhile trusts nothing; the next prompt asks again.
      const cancelled = answer === "cancelled" || preparing.signal.aborted;
      const text = cancelled ? trustOutcome("cancelled", question.userConfig) : trustOutcome(answer, question.userConfig);
      notify(client, live.id, { sessionUpdate: "tool_call_update", toolCallId: request.toolCall.toolCallId, status: answer === "always" || answer === "session" ? "completed" : "failed", content: [{ type: "content", content: { type: "text", text } }] });
      if (cancelled) return undefined;
      delete live.trustQuestion;
      if (answer === "no") return live;
      if (answer === "always") await this.rememberTrust(question.folder, question.userConfig);
      // The untrusted runtime goes (its Lua workers too); nothing of the folder ran in it.
      await closeLive(live);
      const { id, cwd, mcpServers, resumed, mode } = live;
      const trusted = await this.build(client, { id, cwd, mcpServers, resumed, trusted: true, ...(mode !== undefined && { mode }) }).catch((error: unknown) => {
        // The old runtime is closed: the session is gone, and the error says why.
        this.sessions.delete(id);
        throw error;
      });
      this.sessions.set(id, trusted);
      // The folder's config may set another mode once trusted: the editor shows the one in force.
      const now = trusted.runtime.permissions?.engine.mode;
      if (now !== undefined && now !== live.runtime.permissions?.engine.mode) notify(client, live.id, { sessionUpdate: "current_mode_update", currentModeId: now });
      return trusted;
    } finally {
      signal.removeEventListener("abort", onAbort);
      delete live.preparing;
    }
  }

  private async rememberTrust(folder: string, userConfig: string): Promise<void> {
    const { setFolderTrust } = await import("../permissions/save.js");
    try {
      await setFolderTrust(userConfig, folder, true);
    } catch (error) {
      this.options.warn(`could not save the trust in ${userConfig}: ${(error as Error).message}; the folder is trusted for this session only`);
    }
  }

  /** The session's permission modes, for `session/new` and `session/load`. */
  private modesOf(live: LiveSession): { modes?: SessionModeState } {
    const engine = live.runtime.permissions?.engine;
    return engine ? { modes: sessionModes(engine.mode) } : {};
  }

  private async prompt(live: LiveSession, asked: Parameters<AgentSession["prompt"]>[0], client: AgentContext, signal: AbortSignal): Promise<PromptResponse> {
    // `/command ARGS`, `/skill-name`, `$skill-name` (src/runtime/prompt-invocation.ts); a `!`…`` of a command asks this client.
    live.runtime.permissions?.setAsk((request, on) => askClient(client, live.id, request, live.cwd, on));
    const say = (text: string): void => notify(client, live.id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
    // `/rewind`, `/fork`: awl's own (rewind-commands.ts), answered as text; no turn runs.
    const asText = typeof asked === "string" ? asked : asked.every((b) => b.type === "text") ? asked.map((b) => (b.type === "text" ? b.text : "")).join("") : "";
    const reply = live.runtime.branching ? await rewindCommandReply(asText, live.session) : undefined;
    if (reply !== undefined) {
      say(reply);
      return { stopReason: "end_turn" };
    }
    const invoked = await invokePrompt(asked, live.runtime, live.cwd, signal);
    if (invoked.kind === "printed") say(invoked.text);
    if (invoked.kind === "refused") say(invoked.message);
    if (invoked.kind !== "send") return { stopReason: signal.aborted ? "cancelled" : invoked.kind === "refused" ? "refusal" : "end_turn" };
    const content = invoked.content;
    const turn = live.session.prompt(content, invoked.model === undefined ? {} : { model: invoked.model });
    // This turn's asks go to the client that sent the prompt; "cancelled" (or Esc's equivalent) ends the turn.
    live.runtime.permissions?.setAsk((request, asked) => askClient(client, live.id, request, live.cwd, asked), () => turn.cancel());
    // A plan (exit_plan) asks the client too; its approval switches the session's mode, which the editor is told.
    // With the client's file system the plan can be edited first, in the session folder's .awl/plan.md.
    const files = clientTextHost(this.clientCapabilities, client, live.id);
    const planFile = files && { files, path: join(live.cwd, ".awl", "plan.md") };
    live.runtime.plan?.setReview((plan, asked, call) => reviewPlanWithClient(client, live.id, plan, call, asked, planFile), {
      onCancelTurn: () => turn.cancel(),
      onModeChange: (mode) => {
        live.mode = mode;
        notify(client, live.id, { sessionUpdate: "current_mode_update", currentModeId: mode });
      },
    });
    const onAbort = (): void => turn.cancel();
    signal.addEventListener("abort", onAbort);
    const updates = new TurnUpdates(() => live.runtime.agent.tools?.definitions() ?? [], live.cwd, (update) => notify(client, live.id, update));
    try {
      for await (const event of turn) {
        if (event.type !== "turn_end") {
          updates.handle(event);
          continue;
        }
        if (event.meter?.context_tokens !== undefined) notify(client, live.id, usageUpdate(event.meter));
        return { stopReason: stopReasonOf(event.result, live.runtime.settings, (text) => notify(client, live.id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } })) };
      }
      throw new RequestError(INTERNAL_ERROR, "the turn ended without a result");
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }
}

/** A session's folder must be an absolute path to an existing directory. */
function checkFolder(cwd: string): void {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams(undefined, `cwd must be an absolute path, got "${cwd}"`);
  let folder: boolean;
  try {
    folder = statSync(cwd).isDirectory();
  } catch (e) {
    throw RequestError.invalidParams(undefined, `cannot work in ${cwd}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such folder" : (e as Error).message}`);
  }
  if (!folder) throw RequestError.invalidParams(undefined, `cannot work in ${cwd}: it is not a folder`);
}

/** What the editor's trust answer did, for the question's tool call. */
function trustOutcome(answer: TrustAnswer, userConfig: string): string {
  switch (answer) {
    case "always":
      return `trusted: its extensions load now, and the folder is remembered in ${userConfig}`;
    case "session":
      return "trusted for this session: its extensions load now";
    case "no":
      return "not trusted: the session goes on without what the folder brings";
    case "cancelled":
      return "not trusted: the prompt was cancelled; the next prompt asks again";
  }
}

/** ACP's stop reason for how the turn ended; a provider error is the request's error, a crash is told as text. */
function stopReasonOf(result: TurnResult, settings: AwlSettings, say: (text: string) => void): StopReason {
  switch (result.stop_reason) {
    case "max_tokens":
      return "max_tokens";
    case "max_steps":
      return "max_turn_requests";
    case "cancelled":
      return "cancelled";
    case "content_filter":
      return "refusal";
    case "tool_crash":
      say(`\n\n${result.crashes.map((c) => `awl: ${crashReport(c)}`).join("\n")}\n`);
      return "end_turn";
    case "error": {
      const error = result.error;
      const described = error ? describeProviderError(error, settings) : { message: "the turn failed" };
      throw new RequestError(INTERNAL_ERROR, `${described.message}${described.hint ? `; ${described.hint}` : ""}`, error ? { kind: error.kind, status: error.status ?? null } : undefined);
    }
    default:
      return "end_turn";
  }
}

/** How full the context window is after a turn, and what the session cost so far (when the prices are known). */
function usageUpdate(meter: MeterSnapshot): SessionUpdate {
  const cost = meter.session.cost_usd;
  return { sessionUpdate: "usage_update", used: meter.context_tokens ?? 0, size: meter.context_window, ...(cost !== undefined && { cost: { amount: Number(cost), currency: "USD" } }) };
}

/** Sends one update; a client gone meanwhile is noticed by the connection closing, not here. */
/** Tells the client the session's commands (acp/commands.ts), once the response that names the session is out. */
function advertiseCommands(client: AgentContext, live: LiveSession): void {
  setImmediate(() => {
    void availableCommands(live.runtime).then((commands) => {
      const availableCommands = live.runtime.branching ? [...REWIND_COMMANDS, ...commands.filter((c) => !REWIND_COMMANDS.some((r) => r.name === c.name))] : commands;
      notify(client, live.id, { sessionUpdate: "available_commands_update", availableCommands });
    });
  });
}

function notify(client: AgentContext, sessionId: string, update: SessionUpdate): void {
  void client.notify("session/update", { sessionId, update }).catch(() => {});
}
