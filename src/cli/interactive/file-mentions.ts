/**
 * `@path` in a prompt: Tab completes the path (files and folders of the working directory, without what the
 * `.gitignore` files (the repository's root's down to the folder's own) and `.git/info/exclude` leave out, nor
 * `.git` itself), and on sending, each `@path` naming a text file
 * attaches the file's content to the message (docs/cli.md, "Files in a prompt"). A path that names no file stays
 * text as typed; a file too big or not text is named in a note instead of attached.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ignore from "ignore";
import { ancestorLayers, ignoredBy, withOwnLayer, type Ignore } from "../../util/ignore-layers.js";

/** Files bigger than this are not attached (a note says so). */
export const MAX_ATTACHED_BYTES = 256 * 1024;
/** The most choices Tab lists. */
const MAX_CHOICES = 200;

const MENTION = /(^|\s)@((?:\\ |[^\s])+)/g;

export interface Attachments {
  /** The prompt with the attached files' contents after it. */
  text: string;
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
    if (size > MAX_ATTACHED_BYTES) {
      notes.push(`${shown} is ${Math.round(size / 1024)} KB, more than the ${MAX_ATTACHED_BYTES / 1024} KB awl attaches; not attached`);
      continue;
    }
    const bytes = readFileSync(full);
    if (bytes.includes(0)) {
      notes.push(`${shown} is not a text file (images and other binary files cannot be attached yet); not attached`);
      continue;
    }
    attached.push(shown);
    parts.push(`<file path="${shown}">\n${bytes.toString("utf8").replace(/\n?$/, "\n")}</file>`);
  }
  return { text: parts.length === 0 ? prompt : `${prompt}\n\n${parts.join("\n\n")}`, attached, notes };
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

const makeIgnore = (): Ignore => ignore({ allowRelativePaths: true });
