/**
 * An MCP `tools/call` result → awl's tool result (the tool contract of SPEC §4): text blocks joined; images to
 * the model (`images`); audio, which no provider takes in a tool result, as a notice; resource links and
 * embedded resources as text naming them; `structuredContent` as JSON text when the server sent no text (the
 * spec asks servers to send both), and in `details` always; `isError` as `is_error`.
 */
import type { ImageData } from "../../model/blocks.js";

/** The parts of a CallToolResult used here (the SDK's type, loosened: servers send what they send). */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  /** Protocol 2024-10-07 servers answer with `toolResult` instead of `content`. */
  toolResult?: unknown;
}

export interface MappedResult {
  content: string;
  is_error: boolean;
  images?: ImageData[];
  details?: unknown;
}

/** Image types the providers take; others are named in the text instead. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export function mapCallResult(result: McpCallResult): MappedResult {
  const parts: string[] = [];
  const images: ImageData[] = [];
  const blocks = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  for (const block of blocks) {
    if (typeof block !== "object" || block === null) continue;
    const b = block as Record<string, unknown>;
    switch (b.type) {
      case "text":
        parts.push(String(b.text ?? ""));
        break;
      case "image": {
        const mime = String(b.mimeType ?? "");
        const data = String(b.data ?? "");
        if (IMAGE_TYPES.has(mime)) images.push({ media_type: mime, data });
        else parts.push(`[image of type ${mime || "unknown"} (${approxBytes(data)}), which awl cannot show the model]`);
        break;
      }
      case "audio":
        parts.push(`[audio ${String(b.mimeType ?? "")} (${approxBytes(String(b.data ?? ""))}): awl cannot pass audio to the model]`);
        break;
      case "resource_link":
        parts.push(resourceLinkText(b));
        break;
      case "resource":
        parts.push(embeddedResourceText(b.resource));
        break;
      default:
        parts.push(`[a content block of type ${JSON.stringify(b.type)} that awl does not know]`);
    }
  }
  if (result.toolResult !== undefined && blocks.length === 0) parts.push(asText(result.toolResult));
  const structured = result.structuredContent;
  if (structured !== undefined && parts.length === 0 && images.length === 0) parts.push(JSON.stringify(structured));
  return {
    content: parts.join("\n"),
    is_error: result.isError === true,
    ...(images.length > 0 && { images }),
    ...(structured !== undefined && { details: { structuredContent: structured } }),
  };
}

function resourceLinkText(b: Record<string, unknown>): string {
  const name = b.title ?? b.name;
  const extra = [b.mimeType, b.description].filter((x) => typeof x === "string" && x !== "").join(", ");
  return `[resource link: ${name ? `${String(name)} ` : ""}<${String(b.uri ?? "")}>${extra ? ` (${extra})` : ""}]`;
}

function embeddedResourceText(resource: unknown): string {
  if (typeof resource !== "object" || resource === null) return "[an embedded resource without content]";
  const r = resource as Record<string, unknown>;
  const head = `[resource <${String(r.uri ?? "")}>${typeof r.mimeType === "string" ? ` (${r.mimeType})` : ""}]`;
  if (typeof r.text === "string") return `${head}\n${r.text}`;
  if (typeof r.blob === "string") return `${head.slice(0, -1)}: ${approxBytes(r.blob)} of binary data]`;
  return head;
}

function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The decoded size of base64 text, for notices. */
function approxBytes(base64: string): string {
  const bytes = Math.floor((base64.replace(/=+$/, "").length * 3) / 4);
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`;
}
