/**
 * The figures of the model in use, asked from the server only when they matter: a model the catalogue knows (or
 * the config file describes) is answered at once; for another one on an OpenAI-compatible server, `ensure()` asks
 * the server once (`askServerLimits`) and remembers the answer. awl calls `ensure()` when a conversation grows past
 * {@link ASK_SERVER_FROM_TOKENS} (no model's window is smaller) and for `/cost`, so short runs send nothing extra.
 */
import { askServerLimits, type ServerModelLimits } from "../providers/model-limits.js";
import type { ProviderSettings } from "../providers/types.js";
import { catalogueEntry, resolveModelInfo, type ModelInfo, type ModelOverride } from "./catalogue.js";

/** Below this many tokens no window can be too small (the smallest windows in use hold 4096). */
export const ASK_SERVER_FROM_TOKENS = 3_000;

export type AskServer = (settings: ProviderSettings) => Promise<ServerModelLimits | undefined>;

export class ModelInfoResolver {
  /** Worked out when first asked for (it reads the model catalogue). */
  private info: ModelInfo | undefined;
  private asked: Promise<ModelInfo> | undefined;

  constructor(
    readonly settings: ProviderSettings,
    readonly overrides: Readonly<Record<string, ModelOverride>> = {},
    private readonly ask: AskServer = askServerLimits,
  ) {}

  /** What is known now, without asking anything. */
  get current(): ModelInfo {
    return (this.info ??= resolveModelInfo(this.settings.model, this.overrides));
  }

  /** True when the server could tell more than awl knows (and has not been asked yet). */
  get canAsk(): boolean {
    if (this.asked || this.settings.provider !== "openai") return false;
    const info = this.current;
    if (info.source === "config" || info.source === "server") return false;
    return info.catalogue_key === undefined || catalogueEntry(this.settings.model)?.entry.local === true;
  }

  /** The figures, asking the server first when it could tell more; never rejects. */
  ensure(): Promise<ModelInfo> {
    if (!this.canAsk) return this.asked ?? Promise.resolve(this.current);
    this.asked = this.ask(this.settings).then(
      (server) => {
        if (server) this.info = resolveModelInfo(this.settings.model, this.overrides, server);
        return this.current;
      },
      () => this.current,
    );
    return this.asked;
  }
}
