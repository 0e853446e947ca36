/**
 * The ACP transport on the process's stdio. stdout belongs to the protocol alone: anything else written there
 * (a stray log, a library's console.log) would break the client, so once the transport is made every other
 * write to stdout goes to stderr instead. stdin ends: the stream ends, and the connection closes. Credentials the
 * run knows are scrubbed from what it sends (src/ui/output/scrub-printed.ts).
 */
import { Readable } from "node:stream";
import { ndJsonStream, type Stream } from "@agentclientprotocol/sdk";
import { scrubChunk } from "../ui/output/scrub-printed.js";

export function stdioStream(): Stream {
  const protocolWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  const output = new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        protocolWrite(scrubChunk(chunk), (error) => (error ? reject(error) : resolve()));
      }),
  });
  const input = Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>;
  return ndJsonStream(output, input);
}
