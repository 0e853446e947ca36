/**
 * `@path` in a prompt: Tab completes the path (files and folders of the working directory, without what the
 * `.gitignore` files (the repository's root's down to the folder's own) and `.git/info/exclude` leave out, nor
 * `.git` itself), and on sending, each `@path` naming a text file
 * attaches the file's content to the message, and one naming an image (png, jpeg, gif, webp) attaches the image
 * (docs/cli.md, "Files in a prompt"). A path that names no file stays text as typed; a file too big, not text, or
 * an image whose bytes are not of its type is named in a note instead of attached.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, relative, resolve } from "node:path";
import type { ImageBlock } from "../model/blocks.js";
import { MAX_PROMPT_IMAGE_BYTES, promptImage } from "../model/images.js";
import { ancestorLayers, ignoredBy, withOwnLayer } from "../util/ignore-layers.js";
import { makeIgnore } from "../util/make-ignore.js";

/** Files bigger than this are not attached (a note says so). */
export const MAX_ATTACHED_BYTES = 256 * 1024;
/** The most choices Tab lists. */
const MAX_CHOICES = 200;

const MENTION = /(^|\s)@((?:\\ |[^\s])+)/g;

/** Image files by name: attached as images, not text. */
const IMAGE_TYPES: Record<string, string> = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" };

export interface Attachments {
  /** The prompt with the attached text files' contents after it. */
  text: string;
  /** The attached images, in the order mentioned. */
  images: ImageBlock[];
  /** Paths attached, relative to the working directory. */
  attached: string[];
  /** What could not be attached, and why. */
  notes: string[];
}

/** Expands the `@path` mentions of `prompt` that name files under `cwd`. */
export function attachMentionedFiles(prompt: string, cwd: string): Attachments {
  const attached: string[] = [];
  const notes: string[] = [];
  const parts: string[] = [];
  const images: ImageBlock[] = [];
  for (const match of prompt.matchAll(MENTION)) {
    const path = match[2]!.replace(/\\ /g, " ").replace(/[,.;:!?)]+$/, "");
    const full = resolve(cwd, path);
    let size: number;
    try {
      const stat = statSync(full);
      if (!stat.isFile()) continue;
      size = stat.size;
    } catch {
      continue; // not a file: an @ that is just text (an e-mail, a handle)
    }
    const shown = relative(cwd, full) || path;
    if (attached.includes(shown)) continue;
    const imageType = IMAGE_TYPES[extname(full).toLowerCase()];
    if (imageType !== undefined) {
      if (size > MAX_PROMPT_IMAGE_BYTES) {
        notes.push(`${shown} is ${(size / 1024 / 1024).toFixed(1)} MB, more than the ${MAX_PROMPT_IMAGE_BYTES / 1024 / 1024} MB awl sends; not attached`);
        continue;
      }
      const image = promptImage(imageType, readFileSync(full).toString("base64"));
      if (!image.ok) {
        notes.push(`${shown} ${image.message}; not attached`);
        continue;
      }
      attached.push(shown);
      images.push(image.image);
      continue;
    }
    if (size > MAX_ATTACHED_BYTES) {
      notes.push(`${shown} is ${Math.round(size / 1024)} KB, more than the ${MAX_ATTACHED_BYTES / 1024} KB awl attaches; not attached`);
      continue;
    }
    const bytes = readFileSync(full);
    if (bytes.includes(0)) {
      notes.push(`${shown} is not a text file (of binary files, awl attaches png, jpeg, gif and webp images); not attached`);
      continue;
    }
    attached.push(shown);
    parts.push(`<file path="${shown}">\n${bytes.toString("utf8").replace(/\n?$/, "\n")}</file>`);
  }
  return { text: parts.length === 0 ? prompt : `${prompt}\n\n${parts.join("\n\n")}`, images, attached, notes };
}

/** Tab completion of the `@path` the prompt ends with: whole texts, as the line editor wants them. */
export function completeFileMention(text: string, cwd: string): string[] {
  const match = /(^|\s)@((?:\\ |[^\s])*)$/.exec(text);
  if (!match) return [];
  const typed = match[2]!.replace(/\\ /g, " ");
  const folder = typed.endsWith("/") ? typed : dirname(typed) === "." && !typed.startsWith("./") ? "" : `${dirname(typed)}/`;
  const start = typed.slice(folder.length);
  const dir = resolve(cwd, folder || ".");
  let entries: { name: string; folder: boolean }[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }).map((e) => ({ name: e.name, folder: e.isDirectory() || (e.isSymbolicLink() && isFolder(join(dir, e.name))) }));
  } catch {
    return [];
  }
  // The rules of every .gitignore from the repository's root (outside one: the working directory) down to `dir`.
  const layers = withOwnLayer(ancestorLayers(dir, makeIgnore, cwd), dir, makeIgnore);
  const head = text.slice(0, text.length - match[2]!.length);
  const choices: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!entry.name.startsWith(start) || entry.name === ".git") continue;
    if (entry.name.startsWith(".") && !start.startsWith(".")) continue;
    if (ignoredBy(layers, join(dir, entry.name), entry.folder)) continue;
    const path = `${folder}${entry.name}`.replace(/ /g, "\\ ");
    choices.push(`${head}${path}${entry.folder ? "/" : " "}`);
    if (choices.length >= MAX_CHOICES) break;
  }
  return choices;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

