/**
 * An ACP prompt as awl's user message: text as it is, an image as an image block (checked: a type both
 * providers take, base64 that is what its type says), embedded context (a file the editor attached) as text
 * naming its URI, a resource link as a mention of its URI. awl advertises no audio support, so a client that
 * sends audio anyway gets an error naming the block.
 */
import type { ContentBlock as AcpBlock } from "@agentclientprotocol/sdk";
import type { ImageBlock, TextBlock } from "../model/blocks.js";
import { promptImage } from "../model/images.js";

export type PromptConversion = { ok: true; content: Array<TextBlock | ImageBlock> } | { ok: false; message: string };

export function promptContent(blocks: readonly AcpBlock[]): PromptConversion {
  const content: Array<TextBlock | ImageBlock> = [];
  for (const [i, block] of blocks.entries()) {
    switch (block.type) {
      case "text":
        content.push({ type: "text", text: block.text });
        break;
      case "image": {
        const image = promptImage(block.mimeType, block.data);
        if (!image.ok) return { ok: false, message: `prompt block ${i} (image) ${image.message}` };
        content.push(image.image);
        break;
      }
      case "resource_link":
        content.push({ type: "text", text: `@${block.uri}` });
        break;
      case "resource":
        if ("text" in block.resource) content.push({ type: "text", text: `<context uri="${block.resource.uri}">\n${block.resource.text}\n</context>` });
        else content.push({ type: "text", text: `@${block.resource.uri} (binary, not included)` });
        break;
      default:
        return { ok: false, message: `prompt block ${i} is ${block.type}: awl takes text, image, resource and resource_link blocks` };
    }
  }
  if (content.every((b) => b.type === "text" && b.text.trim() === "")) return { ok: false, message: "the prompt is empty" };
  return { ok: true, content };
}
