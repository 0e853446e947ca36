/**
 * A response body as text (docs/extension-api.md, `awl.http`): whether it is text at all, by its media type (or,
 * without one, by whether it is valid UTF-8), and its characters decoded by the charset the server named (the
 * `Content-Type` parameter, or an HTML page's `<meta charset>`), UTF-8 when it named none or one nobody knows.
 * Bytes that are not valid in the charset become U+FFFD, and a note says so: nothing is dropped silently.
 */
import { isUtf8 } from "node:buffer";

/** Media types that are text besides `text/*`. */
const TEXT_TYPES = /^(?:application\/(?:json|xml|javascript|ecmascript|x-www-form-urlencoded|x-sh|x-yaml|yaml|toml|graphql|sql|ld\+json|x-ndjson|ndjson)|[a-z]+\/[-.\w]+\+(?:json|xml))$/;

export interface BodyText {
  /** The body as UTF-8 text, or its bytes untouched when it is binary. */
  body: Buffer;
  binary: boolean;
  /** The charset the text was read in. */
  charset?: string;
  /** What was odd: an unknown charset, invalid bytes replaced. */
  note?: string;
}

/** The media type of a `Content-Type` header, lower case, without parameters ("" when none). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Whether a body of this media type is text. */
export function isTextType(type: string): boolean {
  return type.startsWith("text/") || TEXT_TYPES.test(type);
}

/** Decodes `bytes` as the `contentType` says (see the module's comment). */
export function bodyText(bytes: Buffer, contentType: string | undefined): BodyText {
  const type = mediaType(contentType);
  const declared = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? "")?.[1];
  if (type !== "" && !isTextType(type)) return { body: bytes, binary: true };
  if (type === "" && !declared && !isUtf8(bytes)) return { body: bytes, binary: true };
  const label = declared ?? (type === "text/html" || type === "application/xhtml+xml" ? metaCharset(bytes) : undefined) ?? "utf-8";
  let decoder: TextDecoder;
  let note: string | undefined;
  // Valid UTF-8 (without a byte-order mark) already is what Lua gets: the bytes as they came, checked without decoding
  // them (a 1 MB body decoded only to be encoded back cost ≈ 5 ms).
  if (/^(?:utf-?8|unicode-1-1-utf-8)$/i.test(label) && isUtf8(bytes) && !hasBom(bytes)) return { body: bytes, binary: false, charset: "utf-8" };
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder("utf-8");
    note = `the server named the charset ${JSON.stringify(label)}, which awl does not know: read as UTF-8`;
  }
  const text = decoder.decode(bytes);
  if (text.includes("\ufffd") && !strictlyDecodes(decoder.encoding, bytes)) {
    note = [note, `some bytes were not valid ${decoder.encoding} and were replaced with U+FFFD`].filter(Boolean).join("; ");
  }
  // Valid UTF-8 already is what Lua gets: the bytes as they came (no second encoding of a large body).
  const body = decoder.encoding === "utf-8" && !text.includes("\ufffd") && !text.startsWith("\ufeff") ? bytes : Buffer.from(text, "utf8");
  return { body, binary: false, charset: decoder.encoding, ...(note && { note }) };
}

/** A UTF-8 byte-order mark at the start (decoding drops it, so such a body is decoded). */
function hasBom(bytes: Buffer): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

function strictlyDecodes(encoding: string, bytes: Buffer): boolean {
  try {
    new TextDecoder(encoding, { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The charset an HTML page names in its first 1024 bytes (`<meta charset=…>` or `http-equiv` content). */
function metaCharset(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, 1024).toString("latin1");
  return /<meta[^>]+charset\s*=\s*["']?\s*([-\w:.]+)/i.exec(head)?.[1];
}
