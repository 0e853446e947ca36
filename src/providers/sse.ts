/**
 * Server-sent events framing (SPEC §3 rule 1), bytes in, events out.
 * Framing is `eventsource-parser` (WHATWG-conformant: CR/LF/CRLF, a CRLF split across reads, comments,
 * one optional space, multi-line data joined with "\n", no dispatch without `data:`); this module adds the
 * byte side: UTF-8 decoded across read boundaries, and end of input without a trailing blank line
 * drops the unterminated event (a half-sent event is never acted on).
 */
import { createParser } from "eventsource-parser";

/** One dispatched event. `event` is the `event:` field when the server sent one. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** Incremental decoder: `push` each read as it arrives, `end` once at EOF. */
export interface SseDecoder {
  push(bytes: Uint8Array): void;
  /** Flushes the UTF-8 decoder; an event not yet terminated by a blank line is dropped. */
  end(): void;
}

/**
 * Creates a decoder that calls `onEvent` synchronously for each complete event, in order.
 * Stop feeding it once you have what you need; it holds no resources.
 */
export function createSseDecoder(onEvent: (event: SseEvent) => void): SseDecoder {
  const text = new TextDecoder("utf-8");
  // Unknown fields, bad `retry:` values and comments carry no payload: ignored by design.
  const parser = createParser({ onEvent: (message) => onEvent({ event: message.event, data: message.data }) });
  return {
    push(bytes) {
      const chunk = text.decode(bytes, { stream: true });
      if (chunk.length > 0) parser.feed(chunk);
    },
    end() {
      const rest = text.decode();
      if (rest.length > 0) parser.feed(rest);
      // No `reset({ consume: true })`: the unterminated last event is dropped, as the spec says.
    },
  };
}
