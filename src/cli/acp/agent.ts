/**
 * `awl acp`: awl as an Agent Client Protocol agent (docs/acp.md). Each ACP session is an awl session with a
 * runtime of its own (the settings, tools and session file of the CLI), driven through the library session API;
 * its turns stream to the client as `session/update` notifications (updates.ts).
 */
import { isAbsolute } from "node:path";
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
} from "@agentclientprotocol/sdk";
import { AgentSession } from "../../agent-session/agent-session.js";
import type { TurnResult } from "../../agent/agent.js";
import { crashReport } from "../../agent/agent.js";
import type { ConfigResult } from "../../config/errors.js";
import type { AwlSettings, LoadedSettings } from "../../config/index.js";
import { newSessionId } from "../../session/paths.js";
import type { MeterSnapshot } from "../../usage/meter.js";
import { awlVersion } from "../../version.js";
import { openChatTools } from "../chat-tools.js";
import { clientMcpServers } from "./mcp-servers.js";
import { describeProviderError } from "../error-text.js";
import type { CliOptions } from "../options.js";
import { buildRuntime, type Runtime } from "../runtime.js";
import { SessionHook } from "../session-hook.js";
import { clientTextHost } from "./client-files.js";
import { promptContent } from "./prompt-content.js";
import { replaySession } from "./replay.js";
import { TurnUpdates } from "./updates.js";

export interface AcpAgentOptions {
  cli: CliOptions;
  /** The settings as read at start-up; a failure is reported to every `session/new`. */
  loaded: ConfigResult<LoadedSettings>;
  /** Diagnostics (stderr): stdout carries the protocol only. */
  warn(text: string): void;
}

interface LiveSession {
  id: string;
  cwd: string;
  runtime: Runtime;
  session: AgentSession;
}

/** JSON-RPC error codes of ACP beyond the standard ones. */
const RESOURCE_NOT_FOUND = -32002;
const INTERNAL_ERROR = -32603;

export class AcpAgent {
  private readonly sessions = new Map<string, LiveSession>();
  private clientCapabilities: ClientCapabilities = {};

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
        return { sessionId: live.id };
      })
      .onRequest("session/load", async ({ params, client }) => {
        const live = await this.open(client, params.cwd, params.mcpServers ?? [], params.sessionId);
        const loaded = live.runtime.hooks.find((h): h is SessionHook => h instanceof SessionHook)?.resumed;
        if (loaded) await replaySession(loaded, live.runtime.agent.tools, live.cwd, (update) => notify(client, live.id, update));
        return {};
      })
      .onRequest("session/prompt", async ({ params, client, signal }) => {
        const live = this.sessions.get(params.sessionId);
        if (!live) throw RequestError.sessionNotFound(params.sessionId);
        if (live.session.busy) throw RequestError.invalidRequest(undefined, "a prompt is already running in this session");
        const content = promptContent(params.prompt);
        if (!content.ok) throw RequestError.invalidParams(undefined, content.message);
        return this.prompt(live, content.content, client, signal);
      })
      .onNotification("session/cancel", ({ params }) => {
        this.sessions.get(params.sessionId)?.session.cancel();
      });
    return app.connect(stream);
  }

  /** Cancels every running turn, waits for them to end and be saved, then closes every session. */
  async shutdown(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    for (const live of sessions) live.session.cancel();
    await Promise.all(sessions.map((live) => live.session.close()));
  }

  private initializeResponse(): InitializeResponse {
    return {
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        mcpCapabilities: { http: true, sse: true },
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
      },
      agentInfo: { name: "awl", title: "awl", version: awlVersion() },
      authMethods: [],
    };
  }

  /** A new session in `cwd` with the client's MCP servers beside the configured ones, or the saved session `resume` continued there. */
  private async open(client: AgentContext, cwd: string, mcpServers: readonly McpServer[], resume?: string): Promise<LiveSession> {
    if (!isAbsolute(cwd)) throw RequestError.invalidParams(undefined, `cwd must be an absolute path, got "${cwd}"`);
    if (resume !== undefined) {
      const open = this.sessions.get(resume);
      if (open) return open;
    }
    const loaded = this.options.loaded;
    if (!loaded.ok) throw new RequestError(INTERNAL_ERROR, `${loaded.error.message}; ${loaded.error.hint}`);
    try {
      // Tools, project extensions and relative paths resolve against the session's folder.
      process.chdir(cwd);
    } catch (e) {
      throw RequestError.invalidParams(undefined, `cannot work in ${cwd}: ${(e as Error).message}`);
    }
    const flags = { ...this.options.cli.flags, continue: false, ...(resume !== undefined && { resume }) };
    const base = { settings: loaded.value.settings, sources: loaded.value.sources, config: loaded.value.config, cli: { ...this.options.cli, flags }, warn: this.options.warn };
    // A new session is named now; its file is created by its first prompt (no empty sessions are saved).
    const id = resume ?? newSessionId();
    const clientServers = clientMcpServers(mcpServers, cwd, process.env);
    const tools = await openChatTools(base, { interactive: false, clientServers }, clientTextHost(this.clientCapabilities, client, id));
    if (!tools.ok) throw new RequestError(INTERNAL_ERROR, `${tools.error.message}; ${tools.error.hint}`);
    const built = await buildRuntime({ ...base, openedTools: tools.value });
    if (!built.ok) {
      await tools.value.tools.close();
      throw new RequestError(resume !== undefined ? RESOURCE_NOT_FOUND : INTERNAL_ERROR, `${built.error.message}; ${built.error.hint}`, resume !== undefined ? { sessionId: resume } : undefined);
    }
    const runtime = built.value;
    const hook = runtime.hooks.find((h): h is SessionHook => h instanceof SessionHook);
    if (hook && resume === undefined) hook.nextId = id;
    const live: LiveSession = { id, cwd, runtime, session: new AgentSession(runtime) };
    this.sessions.set(id, live);
    return live;
  }

  private async prompt(live: LiveSession, content: Parameters<AgentSession["prompt"]>[0], client: AgentContext, signal: AbortSignal): Promise<PromptResponse> {
    const turn = live.session.prompt(content);
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
function notify(client: AgentContext, sessionId: string, update: SessionUpdate): void {
  void client.notify("session/update", { sessionId, update }).catch(() => {});
}
