/**
 * One prompt's turn as a stream of events: read it with `for await`, or await `done` for how it ended.
 * Events are queued as they happen, so none is lost while the reader is busy; leaving the `for await` early
 * (break, return, throw) cancels the turn, as leaving a stream's loop aborts its request elsewhere.
 */
import type { TurnResult } from "../agent/agent.js";
import type { Message } from "../model/message.js";
import type { MeterSnapshot } from "../usage/meter.js";
import type { TurnEvent } from "./events.js";

/** How a turn ended: the prompt as added to the conversation, the agent's result, and the saved session's id. */
export interface TurnEnd {
  prompt: Message;
  result: TurnResult;
  /** The saved session the turn was written to, if the session is saved. */
  session_id?: string;
  /** Cost and context after the turn, when the runner keeps them. */
  meter?: MeterSnapshot;
}

export class Turn implements AsyncIterable<TurnEvent> {
  /** Resolves when the turn has ended (never rejects: a failure is a stop reason). */
  readonly done: Promise<TurnEnd>;
  private readonly controller = new AbortController();
  private readonly queue: TurnEvent[] = [];
  private head = 0;
  private finished = false;
  private wake: (() => void) | undefined;
  private settle!: (end: TurnEnd) => void;
  private iterated = false;

  /** @internal Made by `AgentSession.prompt`. */
  constructor() {
    this.done = new Promise((resolve) => (this.settle = resolve));
  }

  /** Aborts the turn (the model call, running tools and their processes); it ends with stop reason `cancelled`. */
  cancel(): void {
    this.controller.abort();
  }

  /** Aborted by `cancel` (or the session's). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** @internal */
  push(event: TurnEvent): void {
    this.queue.push(event);
    this.wake?.();
  }

  /** @internal The last event: `turn_end`. */
  end(end: TurnEnd): void {
    this.push({ type: "turn_end", ...end });
    this.finished = true;
    this.wake?.();
    this.settle(end);
  }

  /** The turn's events in order, ending with `turn_end`. One reader per turn. */
  async *[Symbol.asyncIterator](): AsyncIterator<TurnEvent> {
    if (this.iterated) throw new Error("a turn's events can be read once");
    this.iterated = true;
    try {
      for (;;) {
        while (this.head < this.queue.length) {
          const event = this.queue[this.head]!;
          this.head++;
          yield event;
          if (event.type === "turn_end") return;
        }
        // Read events are dropped, so a long turn read as it goes holds only what is unread.
        this.queue.length = 0;
        this.head = 0;
        if (this.finished) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      if (!this.finished) this.cancel();
    }
  }
}
