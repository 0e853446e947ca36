/**
 * The providers used through a sign-in (`awl login`): `copilot` (GitHub Copilot's OpenAI-compatible Chat
 * Completions API) and `chatgpt` (the ChatGPT plan's Responses API). Before each model call the sign-in's token is
 * made fresh (src/login/session.ts); the wire API underneath is built again only when the token changes. A call the
 * server refuses as unauthorised (a token revoked early) is made once more with a token fetched anew; nothing had
 * streamed, so the Receiver sees one call.
 */
import { copilotHeaders, refreshCopilotToken } from "../login/copilot.js";
import { sharedLoginSession, type Refresher } from "../login/session.js";
import type { LoginProvider, LoginRecord } from "../login/types.js";
import { providerError, ProviderConfigError, type ProviderError } from "./errors.js";
import type { Conversation } from "../model/conversation.js";
import type { Provider, ProviderSettings, Receiver } from "./types.js";

interface LoginWire {
  refresher(): Promise<Refresher>;
  /** The wire provider for a fresh record: its URL, token and headers (`callHeaders` among them). */
  create(settings: ProviderSettings, record: LoginRecord, callHeaders: Record<string, string>): Promise<Provider>;
  /** Headers that depend on the call's conversation. */
  callHeaders?(conversation: Conversation): Record<string, string>;
}

const WIRES: Record<LoginProvider, LoginWire> = {
  copilot: {
    refresher: async () => refreshCopilotToken,
    create: async (settings, record, callHeaders) =>
      (await import("./openai/provider.js")).createOpenAIProvider({
        ...settings,
        baseUrl: record.api_base_url!,
        apiKey: record.access_token!,
        headers: { ...copilotHeaders(), ...callHeaders, ...settings.headers },
      }),
    // Copilot counts a premium request for each call a person starts (`user`), not for the agent's own follow-ups
    // after tool results (`agent`), as VS Code and opencode tell it.
    callHeaders: (conversation) => ({ "x-initiator": answersTools(conversation) ? "agent" : "user" }),
  },
  chatgpt: {
    refresher: async () => (await import("../login/chatgpt.js")).refreshChatgptToken,
    create: async (settings, record) => {
      const { chatgptHeaders, chatgptApiUrl } = await import("../login/chatgpt.js");
      const { maxTokens: _unsupported, ...rest } = settings;
      return (await import("./openai-responses/provider.js")).createResponsesProvider({
        ...rest,
        baseUrl: chatgptApiUrl(settings.login?.testServer),
        apiKey: record.access_token!,
        headers: { ...chatgptHeaders(record), ...settings.headers },
      });
    },
  },
};

/** The provider for `settings.provider` ("copilot" or "chatgpt"); its sign-in is read at the first call. */
export async function createLoginProvider(settings: ProviderSettings, provider: LoginProvider): Promise<Provider> {
  if (!settings.login) throw new ProviderConfigError(providerError("config", `provider "${provider}" needs its sign-in settings (awl's data folder)`));
  const wire = WIRES[provider];
  const session = sharedLoginSession(provider, settings.login, await wire.refresher());
  // The wire providers made for the current token, one per set of call headers.
  let built: { token: string; providers: Map<string, Provider> } | undefined;
  const wireFor = async (record: LoginRecord, conversation: Conversation): Promise<Provider> => {
    const current = built?.token === record.access_token && built ? built : { token: record.access_token!, providers: new Map<string, Provider>() };
    built = current;
    const callHeaders = wire.callHeaders?.(conversation) ?? {};
    const key = JSON.stringify(callHeaders);
    const made = current.providers.get(key) ?? (await wire.create(settings, record, callHeaders));
    current.providers.set(key, made);
    return made;
  };
  return {
    name: provider,
    model: settings.model,
    async streamStep(conversation, receiver, options = {}) {
      const login = await session.current();
      if (!login.ok) return failed(receiver, login.error);
      const held = holdAuthError(receiver);
      const first = await (await wireFor(login.record, conversation)).streamStep(conversation, held.receiver, options);
      if (first.ok || first.error.kind !== "auth" || login.refreshed) return held.release(first);
      const again = await session.current(true);
      if (!again.ok) return failed(receiver, again.error);
      return (await wireFor(again.record, conversation)).streamStep(conversation, receiver, options);
    },
  };
}

/** Whether the conversation's last message is tool results (the agent calls again), not a person's prompt. */
function answersTools(conversation: Conversation): boolean {
  const last = conversation.messages.at(-1);
  return last?.role === "user" && last.content.some((block) => block.type === "tool_result");
}

function failed(receiver: Receiver, error: ProviderError): { ok: false; error: ProviderError } {
  receiver.onError?.(error);
  return { ok: false, error };
}

/**
 * `receiver` with an `auth` error held back (the call may be made again with a new token); `release` passes the
 * held error on when it is not.
 */
function holdAuthError(receiver: Receiver): { receiver: Receiver; release<T extends { ok: boolean }>(result: T): T } {
  let held: ProviderError | undefined;
  const onError = (error: ProviderError): void => {
    if (error.kind === "auth") held = error;
    else receiver.onError?.(error);
  };
  const wrapped = new Proxy(receiver, {
    get(target, property) {
      if (property === "onError") return onError;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    receiver: wrapped,
    release(result) {
      if (held) receiver.onError?.(held);
      return result;
    },
  };
}
