/**
 * Large outputs live beside the session, not in it, so session files stay small and quick to resume:
 * `<id>.files/<sha256>.<ext>`, content-addressed (tool ids are neither guaranteed unique nor safe as file names).
 * A line refers to its side file by name (`content_file`, `data_file`, `snapshot_file`, `details_file`).
 */
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { join } from "node:path";
import type { MessageJSON } from "../model/json.js";
import { ioFailure, ok, type SessionResult, type SessionWarning } from "./errors.js";
import type { SecretScrubber } from "../util/secrets.js";
import type { ToolEntry } from "./format.js";

/** Outputs larger than this (UTF-8 bytes) go to a side file. */
export const DEFAULT_SIDE_FILE_THRESHOLD = 64 * 1024;

export interface SideFile {
  name: string;
  data: string;
}

type Json = Record<string, unknown>;

function toSideFile(data: string, ext: "txt" | "b64" | "json"): SideFile {
  return { name: `${createHash("sha256").update(data).digest("hex")}.${ext}`, data };
}

/** Moves large tool_result contents and image data out of a message's JSON form. Never mutates `message`. */
export function externalizeMessage(message: MessageJSON, threshold: number, scrub: SecretScrubber): { json: MessageJSON; files: SideFile[] } {
  const files: SideFile[] = [];
  const blocks = message.content as Json[];
  if (!blocks.some((b) => b.type === "tool_result" || b.type === "image")) return { json: message, files };
  const content = blocks.map((block) => {
    if (block.type === "image" && (block.data as string).length > threshold) {
      const file = toSideFile(block.data as string, "b64");
      files.push(file);
      return { type: "image", media_type: block.media_type, data_file: file.name };
    }
    if (block.type !== "tool_result") return block;
    let out = block;
    const text = block.content as string;
    if (Buffer.byteLength(text) > threshold) {
      const file = toSideFile(scrub.text(text), "txt");
      files.push(file);
      const { content: _moved, ...rest } = block;
      out = { ...rest, content_file: file.name, content_bytes: Buffer.byteLength(file.data) };
    }
    const images = block.images as Json[] | undefined;
    if (images?.some((img) => (img.data as string).length > threshold)) {
      out = {
        ...out,
        images: images.map((img) => {
          if ((img.data as string).length <= threshold) return img;
          const file = toSideFile(scrub.text(img.data as string), "b64");
          files.push(file);
          return { media_type: img.media_type, data_file: file.name };
        }),
      };
    }
    return out;
  });
  return { json: { ...message, content }, files };
}

/** Moves a large snapshot or details value of a tool entry out of line. */
export function externalizeToolEntry(entry: ToolEntry, threshold: number, scrub: SecretScrubber): { entry: ToolEntry; files: SideFile[] } {
  const files: SideFile[] = [];
  const out: ToolEntry = { ...entry };
  for (const key of ["snapshot", "details"] as const) {
    if (out[key] === undefined) continue;
    const text = JSON.stringify(out[key]);
    if (text === undefined || text.length <= threshold) continue;
    const file = toSideFile(scrub.json(text), "json");
    files.push(file);
    delete out[key];
    out[`${key}_file`] = file.name;
  }
  return { entry: out, files };
}

/** The small part of the file system the writer uses; tests inject failures (a full disk) through it. */
export interface WriterIO {
  writeSync(fd: number, data: Uint8Array): number;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, len: number): void;
  writeFileSync(path: string, data: string, options: { mode: number; flag: string }): void;
}

export const nodeIO: WriterIO = {
  writeSync: (fd, data) => fs.writeSync(fd, data),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  ftruncateSync: (fd, len) => fs.ftruncateSync(fd, len),
  writeFileSync: (path, data, options) => fs.writeFileSync(path, data, options),
};

/**
 * Writes side files before the line that names them, each complete and fsynced under a temporary name
 * then renamed, so a line never refers to a half-written file. An existing file has the same content (same hash).
 */
export function writeSideFiles(dir: string, files: readonly SideFile[], io: WriterIO): SessionResult<void> {
  if (files.length === 0) return ok(undefined);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    return ioFailure(e, "create the side-file folder", dir);
  }
  for (const file of files) {
    const path = join(dir, file.name);
    if (fs.existsSync(path)) continue;
    const temp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      io.writeFileSync(temp, file.data, { mode: 0o600, flag: "wx" });
      const fd = fs.openSync(temp, "r");
      try {
        io.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, path);
    } catch (e) {
      fs.rmSync(temp, { force: true });
      return ioFailure(e, "write the side file", path);
    }
  }
  return ok(undefined);
}

const SIDE_FILE_NAME = /^[0-9a-f]{64}\.(txt|b64|json)$/;

/** Reads a side file, or says why not (a name that is not ours is refused: a hand-edited line must not read arbitrary files). */
function readSideFile(dir: string, name: unknown, line: number, warnings: SessionWarning[]): string | undefined {
  const path = join(dir, String(name));
  if (typeof name !== "string" || !SIDE_FILE_NAME.test(name)) {
    warnings.push({ kind: "invalid_line", message: `line ${line}: ${JSON.stringify(name)} is not a side-file name awl writes; ignored`, path: dir, line });
    return undefined;
  }
  try {
    return fs.readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = code === "ENOENT" ? "is missing" : `cannot be read (${code ?? String(e)})`;
    warnings.push({ kind: "missing_side_file", message: `line ${line}: the side file ${path} ${why}; a placeholder stands in for it`, path, line });
    return undefined;
  }
}

/** The text a tool result gets when its side file is gone. */
export function missingSideFileText(dir: string, name: unknown): string {
  return `[awl: this tool output was stored in ${join(dir, String(name))}, which is missing]`;
}

/** Puts side-file contents back into a message's JSON form, in place (the value was just parsed). */
export function internalizeMessage(message: Json, dir: string, line: number, warnings: SessionWarning[]): void {
  if (!Array.isArray(message.content)) return;
  const blocks = message.content as Json[];
  for (const [i, block] of blocks.entries()) {
    if (typeof block === "object" && block !== null && block.type === "image" && block.data_file !== undefined) {
      const data = readSideFile(dir, block.data_file, line, warnings);
      // A prompt's image whose file is gone is told to the model as such (an empty image would be refused).
      blocks[i] = data === undefined ? { type: "text", text: `[awl: an image of this prompt was stored in ${join(dir, String(block.data_file))}, which is missing]` } : { type: "image", media_type: block.media_type, data };
      continue;
    }
    if (typeof block !== "object" || block === null || block.type !== "tool_result") continue;
    if (block.content_file !== undefined) {
      block.content = readSideFile(dir, block.content_file, line, warnings) ?? missingSideFileText(dir, block.content_file);
    }
    if (Array.isArray(block.images)) {
      for (const img of block.images as Json[]) {
        if (img?.data_file === undefined) continue;
        // A missing image becomes an empty one; the warning names the file.
        img.data = readSideFile(dir, img.data_file, line, warnings) ?? "";
      }
    }
  }
}

/** Puts a tool entry's side-file values back; a missing one stays undefined (the warning says so). */
export function internalizeToolEntry(entry: ToolEntry, dir: string, line: number, warnings: SessionWarning[]): void {
  for (const key of ["snapshot", "details"] as const) {
    const name = entry[`${key}_file`];
    if (name === undefined) continue;
    const text = readSideFile(dir, name, line, warnings);
    if (text !== undefined) entry[key] = JSON.parse(text) as unknown;
  }
}
