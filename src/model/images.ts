/**
 * Checks an image a user puts in a prompt (stream-json input, ACP, the library) before it joins the
 * conversation: a type both providers take, base64 data, bytes that are what the type says, and a size a
 * request can carry. A bad image is refused with what is wrong, never sent for the provider to reject.
 */
import { IMAGE_MEDIA_TYPES, type ImageBlock } from "./blocks.js";

/** The largest image awl sends (decoded bytes); providers may take less (Anthropic: 5 MB). */
export const MAX_PROMPT_IMAGE_BYTES = 20 * 1024 * 1024;

const SIGNATURES: Record<(typeof IMAGE_MEDIA_TYPES)[number], (head: Buffer) => boolean> = {
  "image/png": (h) => h.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  "image/jpeg": (h) => h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff,
  "image/gif": (h) => h.subarray(0, 4).toString("latin1") === "GIF8",
  "image/webp": (h) => h.subarray(0, 4).toString("latin1") === "RIFF" && h.subarray(8, 12).toString("latin1") === "WEBP",
};

/** The image block, or what is wrong with it (a sentence without the block's position, which the caller adds). */
export function promptImage(mediaType: unknown, data: unknown): { ok: true; image: ImageBlock } | { ok: false; message: string } {
  if (typeof mediaType !== "string" || !(IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType)) {
    return { ok: false, message: `has media type ${JSON.stringify(mediaType ?? null)}; awl sends ${IMAGE_MEDIA_TYPES.join(", ")}` };
  }
  if (typeof data !== "string" || data === "") return { ok: false, message: "needs its data as a base64 string" };
  if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return { ok: false, message: "has data that is not base64 (no line breaks or URL-safe letters)" };
  const bytes = (data.length / 4) * 3 - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);
  if (bytes > MAX_PROMPT_IMAGE_BYTES) return { ok: false, message: `is ${(bytes / 1024 / 1024).toFixed(1)} MB; awl sends images up to ${MAX_PROMPT_IMAGE_BYTES / 1024 / 1024} MB` };
  const head = Buffer.from(data.slice(0, 16), "base64");
  if (!SIGNATURES[mediaType as keyof typeof SIGNATURES](head)) return { ok: false, message: `says ${mediaType}, but its data is not a ${mediaType.slice(6).toUpperCase()} image` };
  return { ok: true, image: { type: "image", media_type: mediaType, data } };
}
