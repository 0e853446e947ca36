/**
 * Everything awl prints passes through here: stdout and stderr (the text and JSON outputs, `stream-json`, printed
 * errors such as a 401 body that echoes `Bearer sk-...`) and the ACP stream. Each credential the run knows
 * (run-secrets.ts) becomes `[REDACTED]`, as it does on disk. A last line of defence: the formats have no field
 * for keys, but a model, a tool or a server can still put one into text.
 */
import { SecretScrubber } from "../../util/secrets.js";

const scrubber = new SecretScrubber();
let installed = false;

/** Scrubs these credentials too from all that is printed from now on (installs the scrubber on stdout and stderr once). */
export function scrubPrinted(secrets: readonly string[]): void {
  scrubber.add(secrets);
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => write(scrubChunk(chunk as string | Uint8Array), ...rest)) as typeof stream.write;
  }
}

/** `chunk` with every known credential replaced (itself when it holds none). */
export function scrubChunk<T extends string | Uint8Array>(chunk: T): T {
  const secrets = scrubber.known;
  if (secrets.length === 0) return chunk;
  if (typeof chunk === "string") return scrubber.json(scrubber.text(chunk)) as T;
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (!secrets.some((secret) => bytes.includes(secret))) return chunk;
  return Buffer.from(scrubber.text(bytes.toString("utf8"))) as unknown as T;
}
