/**
 * Everything awl prints passes through here: stdout and stderr (the text and JSON outputs, `stream-json`, printed
 * errors such as a 401 body that echoes `Bearer sk-...`) and the ACP stream. Each credential the run knows
 * (src/runtime/run-secrets.ts) becomes `[REDACTED]`, as it does on disk. Text streams out in pieces (a model's answer word by
 * word), so the end of a write that could begin a credential waits for the next write (or, at most
 * {@link HOLD_MS}, for nothing more). A last line of defence: the formats have no field for keys, but a model, a
 * tool or a server can still put one into text.
 */
import { writeSync } from "node:fs";
import { SecretScrubber } from "../../util/secrets.js";
import { onSecretsAnnounced } from "../../util/late-secrets.js";

/** How long the end of a write that may begin a credential waits for the next write before it is printed. */
const HOLD_MS = 30;

const scrubber = new SecretScrubber();
let installed = false;

/** Scrubs these credentials too from all that is printed from now on (installs the scrubber on stdout and stderr once). */
export function scrubPrinted(secrets: readonly string[]): void {
  scrubber.add(secrets);
  if (installed) return;
  installed = true;
  onSecretsAnnounced(scrubber, "add");
  for (const [stream, fd] of [[process.stdout, 1], [process.stderr, 2]] as const) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    let held = "";
    let timer: NodeJS.Timeout | undefined;
    const release = (): void => {
      clearTimeout(timer);
      timer = undefined;
      if (held === "") return;
      const text = held;
      held = "";
      write(text);
    };
    process.on("exit", () => {
      // Synchronously: nothing runs after the exit handlers.
      if (held !== "") writeSync(fd, held);
      held = "";
    });
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (scrubber.known.length === 0 || (typeof chunk !== "string" && !(chunk instanceof Uint8Array))) return write(chunk, ...rest);
      const encoding = typeof rest[0] === "string" ? (rest[0] as BufferEncoding) : "utf8";
      const text = held + (typeof chunk === "string" ? chunk : Buffer.from(chunk).toString(encoding === "utf8" ? "utf8" : encoding));
      const scrubbed = scrubber.json(scrubber.text(text));
      const keep = heldBack(scrubbed, scrubber.known);
      held = scrubbed.slice(scrubbed.length - keep);
      clearTimeout(timer);
      timer = held === "" ? undefined : setTimeout(release, HOLD_MS);
      timer?.unref();
      const callback = rest.find((r) => typeof r === "function");
      return write(scrubbed.slice(0, scrubbed.length - keep), ...(callback ? [callback] : []));
    }) as typeof stream.write;
  }
}

/** How many characters at the end of `text` could be the start of a credential (the longest such end). */
function heldBack(text: string, secrets: readonly string[]): number {
  let keep = 0;
  for (const secret of secrets) {
    for (let n = Math.min(secret.length - 1, text.length); n > keep; n--) {
      if (text.endsWith(secret.slice(0, n))) {
        keep = n;
        break;
      }
    }
  }
  return keep;
}

/** `chunk` with every known credential replaced (itself when it holds none): for a stream written whole (ACP). */
export function scrubChunk<T extends string | Uint8Array>(chunk: T): T {
  const secrets = scrubber.known;
  if (secrets.length === 0) return chunk;
  if (typeof chunk === "string") return scrubber.json(scrubber.text(chunk)) as T;
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (!secrets.some((secret) => bytes.includes(secret))) return chunk;
  return Buffer.from(scrubber.text(bytes.toString("utf8"))) as unknown as T;
}
