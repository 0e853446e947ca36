/**
 * The AWS event stream (`application/vnd.amazon.eventstream`, Bedrock's ConverseStream response) decoded into the
 * driver's events. Each frame: total length and headers length (uint32, big-endian), the CRC-32 of those 8 bytes,
 * the headers, the payload, the CRC-32 of everything before it. Frames may arrive split across reads or several in
 * one read. A frame becomes `{event, data}`: `event` is its `:event-type` for `:message-type` `event`,
 * `exception:<:exception-type>` for an exception, `error:<:error-code>` for an error (`data` then its
 * `:error-message`); `data` is the payload as UTF-8 (JSON). A frame whose CRC or lengths do not add up ends the stream
 * with `{event: ":corrupt", data: why}`: nothing after it can be trusted.
 */
import type { SseDecoder, SseEvent } from "../sse.js";

const PRELUDE = 12;
const MAX_FRAME = 16 * 1024 * 1024;

export function createEventStreamDecoder(onEvent: (event: SseEvent) => void): SseDecoder {
  let buffer: Buffer = Buffer.alloc(0);
  let broken = false;
  const corrupt = (why: string): void => {
    broken = true;
    onEvent({ event: ":corrupt", data: why });
  };
  return {
    push(bytes) {
      if (broken) return;
      buffer = buffer.length === 0 ? Buffer.from(bytes) : Buffer.concat([buffer, bytes]);
      while (!broken && buffer.length >= PRELUDE) {
        const total = buffer.readUInt32BE(0);
        const headersLength = buffer.readUInt32BE(4);
        if (crc32(buffer.subarray(0, 8)) !== buffer.readUInt32BE(8)) return corrupt("a frame's prelude CRC does not match");
        if (total < PRELUDE + 4 + headersLength || total > MAX_FRAME) return corrupt(`a frame's length (${total} bytes, headers ${headersLength}) is impossible`);
        if (buffer.length < total) return;
        const frame = buffer.subarray(0, total);
        buffer = buffer.subarray(total);
        if (crc32(frame.subarray(0, total - 4)) !== frame.readUInt32BE(total - 4)) return corrupt("a frame's message CRC does not match");
        const headers = readHeaders(frame.subarray(PRELUDE, PRELUDE + headersLength));
        if (headers === undefined) return corrupt("a frame's headers cannot be read");
        const payload = frame.subarray(PRELUDE + headersLength, total - 4).toString("utf8");
        const type = headers[":message-type"];
        if (type === "exception") onEvent({ event: `exception:${headers[":exception-type"] ?? "unknown"}`, data: payload });
        else if (type === "error") onEvent({ event: `error:${headers[":error-code"] ?? "unknown"}`, data: headers[":error-message"] ?? payload });
        else onEvent({ event: headers[":event-type"], data: payload });
      }
    },
    end() {
      // A partial frame at the end is dropped; the assembler decides whether the message was complete.
    },
  };
}

/** Header name → value, strings only (the types Bedrock sends); other types are skipped by their size. */
function readHeaders(bytes: Buffer): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  const fixed: Record<number, number> = { 0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16 };
  let at = 0;
  while (at < bytes.length) {
    const nameLength = bytes[at]!;
    const name = bytes.subarray(at + 1, at + 1 + nameLength).toString("utf8");
    at += 1 + nameLength;
    const type = bytes[at];
    at += 1;
    if (type === 6 || type === 7) {
      if (at + 2 > bytes.length) return undefined;
      const length = bytes.readUInt16BE(at);
      if (type === 7) out[name] = bytes.subarray(at + 2, at + 2 + length).toString("utf8");
      at += 2 + length;
    } else if (type !== undefined && fixed[type] !== undefined) at += fixed[type]!;
    else return undefined;
  }
  return at === bytes.length ? out : undefined;
}

let table: Uint32Array | undefined;

/** CRC-32 (IEEE), as the event stream uses. */
export function crc32(bytes: Uint8Array): number {
  table ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = 0xffffffff;
  for (const byte of bytes) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
