/**
 * The usage side of one running conversation: which model figures apply ({@link ModelInfoResolver}), and the
 * {@link UsageMeter} every model call of it is recorded in. The CLI's runtime and the library's session API hold
 * one; `observe(receiver)` is the receiver a turn runs with so that each call's usage is recorded as it ends.
 */
import type { TurnReceiver } from "../agent/agent.js";
import type { ProviderSettings } from "../providers/types.js";
import { resolveModelInfo, type ModelInfo, type ModelOverride } from "./catalogue.js";
import { UsageMeter, type RecordedCall } from "./meter.js";
import { ModelInfoResolver, type AskServer } from "./model-info.js";

export class SessionUsage {
  readonly meter: UsageMeter;
  private resolver: ModelInfoResolver;

  constructor(
    settings: ProviderSettings,
    readonly overrides: Readonly<Record<string, ModelOverride>> = {},
    private readonly ask?: AskServer,
  ) {
    const resolver = (this.resolver = new ModelInfoResolver(settings, overrides, ask));
    this.meter = new UsageMeter(settings.provider, () => resolver.current);
  }

  /** The figures known now. */
  get model(): ModelInfo {
    return this.resolver.current;
  }

  /** The figures, asking the server when it could tell more (once); the meter follows. Never rejects. */
  async ensureModelInfo(): Promise<ModelInfo> {
    const resolver = this.resolver;
    // The figures the meter prices the calls so far with are those known before the server is asked.
    void this.meter.model;
    const info = await resolver.ensure();
    if (resolver === this.resolver && info !== this.meter.model) this.meter.setModel(resolver.settings.provider, info);
    return info;
  }

  /** Another model from now on (`/model`). */
  switchModel(settings: ProviderSettings): void {
    const resolver = (this.resolver = new ModelInfoResolver(settings, this.overrides, this.ask));
    this.meter.setModel(settings.provider, () => resolver.current);
  }

  /** A saved session continued: its calls are the session's totals so far. */
  resumed(calls: readonly RecordedCall[]): void {
    this.meter.seed(calls, (call) => (call.model === this.model.model ? this.model : resolveModelInfo(call.model, this.overrides)));
  }

  /** `receiver`, recording each call's usage: a complete message's, and a retried or failed attempt's (it was billed). */
  observe(receiver: TurnReceiver): TurnReceiver {
    const meter = this.meter;
    return new Proxy(receiver, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        const own = typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : undefined;
        if (property === "onMessageComplete")
          return (message: Parameters<NonNullable<TurnReceiver["onMessageComplete"]>>[0]) => {
            if (message.usage) meter.record(message.usage);
            own?.(message);
          };
        if (property === "onRetry")
          return (notice: Parameters<NonNullable<TurnReceiver["onRetry"]>>[0]) => {
            if (notice.error.usage) meter.record(notice.error.usage);
            own?.(notice);
          };
        if (property === "onError")
          return (error: Parameters<NonNullable<TurnReceiver["onError"]>>[0]) => {
            if (error.usage) meter.record(error.usage);
            own?.(error);
          };
        return own ?? value;
      },
    });
  }
}
