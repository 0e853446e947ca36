/**
 * Tokens, context use and cost of a session, per turn and in total: what the interactive status line, `/cost`, the
 * JSON outputs and `awl sessions` show (docs/cost.md). Each model call is recorded with the usage it reported
 * (a retried or failed attempt too: it was billed) and priced with the model in use at the time, once a total is
 * asked for: the model's figures come from the catalogue, which a one-line reply printed as text never reads.
 */
import { addUsage, emptyUsage, type Usage } from "../model/message.js";
import type { ModelInfo } from "./catalogue.js";
import { callCost, formatUsd, totalInputTokens, usageProblem, usdText, usdToPico, type UsageConvention } from "./cost.js";

/** The usage convention of a provider: Anthropic's, or the OpenAI-compatible one (docs/cost.md). */
export function conventionOf(provider: string): UsageConvention {
  return provider === "anthropic" ? "anthropic" : "openai";
}

/** A sum of model calls. */
export interface CostTotals {
  usage: Usage;
  /** Model calls that reported usage. */
  calls: number;
  /** Exact USD as a decimal string; undefined when the cost of a call is unknown. */
  cost_usd?: string;
  /** Why the cost is unknown (the first call that made it so). */
  unknown_reason?: string;
}

/** What the status line and `/cost` show. */
export interface MeterSnapshot {
  provider: string;
  model: string;
  context_window: number;
  /** Where the window came from (`config`, `catalogue`, `server`, `default`). */
  context_source: ModelInfo["source"];
  /** Tokens the conversation holds now: the last call's input and output, or an estimate after a compaction. */
  context_tokens?: number;
  /** `context_tokens` as a percentage of the window, one decimal. */
  context_percent?: number;
  turn: CostTotals;
  session: CostTotals;
  /** A one-line note (an assumed window, usage that does not add up). */
  note?: string;
}

/** What a session shows before its first model call, when the model's figures are not looked up yet (the window unknown: 0). */
export function idleSnapshot(provider: string, model: string): MeterSnapshot {
  return { provider, model, context_window: 0, context_source: "default", turn: totals(running()), session: totals(running()) };
}

/** One recorded model call, as a resumed session hands them back. */
export interface RecordedCall {
  provider: string;
  model: string;
  usage: Usage;
}

type Listener = (snapshot: MeterSnapshot) => void;

interface Running {
  usage: Usage;
  calls: number;
  pico: bigint;
  unknown?: string;
}

/** A model's figures, or what gives them when first needed (once). */
export type ModelInfoOrLater = ModelInfo | (() => ModelInfo);

/** A call recorded and not priced yet, with the model it was made with. */
interface Unpriced {
  usage: Usage;
  provider: string;
  info: () => ModelInfo;
}

export class UsageMeter {
  private turn: Running = running();
  private session: Running = running();
  private unpriced: Unpriced[] = [];
  private contextTokens: number | undefined;
  /** Why a call's cost is unknown (its usage did not add up), over the model's own note. */
  private usageNote: string | undefined;
  private info: () => ModelInfo;
  private readonly listeners = new Set<Listener>();

  constructor(
    private provider: string,
    info: ModelInfoOrLater,
  ) {
    this.info = once(info);
  }

  /** The model now in use (after `/model`, or once the server told its window). */
  setModel(provider: string, info: ModelInfoOrLater): void {
    this.price();
    this.provider = provider;
    this.info = once(info);
    this.usageNote = undefined;
    this.changed();
  }

  get model(): ModelInfo {
    return this.info();
  }

  /** A new turn starts: the turn's totals start from zero. */
  beginTurn(): void {
    this.price();
    this.turn = running();
    this.changed();
  }

  /**
   * One model call's usage, priced with the model in use. `context: false` for a call that was not the
   * conversation itself (a compaction's summary request): it costs, but says nothing of the context's size.
   */
  record(usage: Usage, options: { context?: boolean } = {}): void {
    this.unpriced.push({ usage, provider: this.provider, info: this.info });
    if (options.context !== false) this.contextTokens = totalInputTokens(usage, conventionOf(this.provider)) + usage.output_tokens;
    this.changed();
  }

  /** Starts over with the calls of a resumed session; `infoFor` gives each one's model figures. */
  seed(calls: readonly RecordedCall[], infoFor: (call: RecordedCall) => ModelInfo): void {
    this.price();
    this.session = running();
    this.contextTokens = undefined;
    for (const call of calls) this.add(call.usage, call.provider, infoFor(call), false);
    const last = calls.at(-1);
    if (last) this.contextTokens = totalInputTokens(last.usage, conventionOf(last.provider)) + last.usage.output_tokens;
    this.turn = running();
    this.changed();
  }

  /** The conversation's size changed without a model call (a compaction): an estimate until the next call reports. */
  setContextTokens(tokens: number): void {
    this.contextTokens = tokens;
    this.changed();
  }

  snapshot(): MeterSnapshot {
    this.price();
    const info = this.info();
    const snapshot: MeterSnapshot = {
      provider: this.provider,
      model: info.model,
      context_window: info.context_window,
      context_source: info.source,
      turn: totals(this.turn),
      session: totals(this.session),
    };
    if (this.contextTokens !== undefined) {
      snapshot.context_tokens = this.contextTokens;
      snapshot.context_percent = Math.round((this.contextTokens / info.context_window) * 1000) / 10;
    }
    const note = this.usageNote ?? info.note;
    if (note) snapshot.note = note;
    return snapshot;
  }

  /** Calls `listener` after every change; returns the function that stops it. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Prices the calls recorded since the last total, each with the model it was made with. */
  private price(): void {
    for (const call of this.unpriced.splice(0)) this.add(call.usage, call.provider, call.info());
  }

  private add(usage: Usage, provider: string, info: ModelInfo, inTurn = true): void {
    const convention = conventionOf(provider);
    const problem = usageProblem(usage, convention);
    if (problem) this.usageNote = `the usage "${info.model}" reported does not add up (${problem}): its cost is unknown`;
    const cost = callCost(usage, info, convention);
    for (const sum of inTurn ? [this.turn, this.session] : [this.session]) {
      sum.usage = addUsage(sum.usage, usage);
      sum.calls++;
      if (cost.ok) sum.pico += cost.pico;
      else sum.unknown ??= cost.reason;
    }
  }

  private changed(): void {
    if (this.listeners.size === 0) return;
    const snapshot = this.snapshot();
    for (const listener of this.listeners) listener(snapshot);
  }
}

/** `info`, or what `info` gives on its first call. */
function once(info: ModelInfoOrLater): () => ModelInfo {
  if (typeof info !== "function") return () => info;
  let known: ModelInfo | undefined;
  return () => (known ??= info());
}

function running(): Running {
  return { usage: emptyUsage(), calls: 0, pico: 0n };
}

function totals(sum: Running): CostTotals {
  const out: CostTotals = { usage: { ...sum.usage }, calls: sum.calls };
  if (sum.unknown === undefined) out.cost_usd = usdText(sum.pico);
  else out.unknown_reason = sum.unknown;
  return out;
}

/** A cost for people: `$0.0123`, or `unknown`. */
export function costText(totals: CostTotals): string {
  return totals.cost_usd === undefined ? "unknown" : formatUsd(usdToPico(totals.cost_usd));
}

/** Tokens for people: 950, 12.3k, 1.2M. */
export function tokensText(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(tokens < 10_000 ? 1 : 0)}k`;
  return `${(tokens / 1_000_000).toFixed(1)}M`;
}

/** `/cost`: the session's and the last turn's tokens and exact cost, and the context use, a few lines of plain text. */
export function costReport(snapshot: MeterSnapshot): string {
  const line = (label: string, t: CostTotals): string => {
    const u = t.usage;
    const cache = [
      u.cache_read_input_tokens ? `cache read ${tokensText(u.cache_read_input_tokens)}` : "",
      u.cache_creation_input_tokens ? `cache write ${tokensText(u.cache_creation_input_tokens)}` : "",
    ].filter(Boolean);
    const tail = t.cost_usd === undefined && t.unknown_reason ? ` (${t.unknown_reason})` : "";
    const cost = t.cost_usd === undefined ? "unknown" : `$${t.cost_usd}`;
    return `${label}: ${cost}${tail} · ↑${tokensText(u.input_tokens)} ↓${tokensText(u.output_tokens)}${cache.length ? ` · ${cache.join(", ")}` : ""} · ${t.calls} ${t.calls === 1 ? "call" : "calls"}`;
  };
  const context =
    snapshot.context_tokens === undefined
      ? `context: ? of ${tokensText(snapshot.context_window)} (${snapshot.context_source})`
      : `context: ${tokensText(snapshot.context_tokens)} of ${tokensText(snapshot.context_window)} (${snapshot.context_percent}%, window from ${snapshot.context_source})`;
  const lines = [`${snapshot.provider} ${snapshot.model}`, line("session", snapshot.session), line("last turn", snapshot.turn), context];
  if (snapshot.note) lines.push(`note: ${snapshot.note}`);
  return lines.join("\n") + "\n";
}
