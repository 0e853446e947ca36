/**
 * YAML front matter of a Markdown file (Agent Skills `SKILL.md`, prompt commands, agent definitions): a first
 * line `---`, YAML, a line `---`, then the body. A file without that first line has no front matter: its whole
 * text is the body. Any fault (YAML that does not parse, a block never closed, YAML that is not a mapping) is a
 * {@link FrontMatterError} naming `file:line`.
 */
import { LineCounter, parseDocument } from "yaml";

/** A front-matter fault: `message` reads `file:line: what is wrong`. */
export class FrontMatterError extends Error {
  constructor(
    /** The file as the caller named it. */
    readonly file: string,
    /** 1-based line in the file. */
    readonly line: number,
    /** What is wrong, without the place. */
    readonly reason: string,
  ) {
    super(`${file}:${line}: ${reason}`);
    this.name = "FrontMatterError";
  }
}

/** What {@link parseFrontMatter} returns. */
export interface FrontMatter {
  /** The front matter's keys (empty when the file has none). */
  data: Record<string, unknown>;
  /** The text after the closing `---` line (the whole text when there is no front matter). */
  body: string;
  /** The 1-based line of the file where `body` starts. */
  bodyLine: number;
}

const FENCE = /^---[ \t]*$/;

/**
 * Splits `text` into its front matter and body. `file` only names the place in errors.
 * @throws FrontMatterError when the front matter is not closed, is not YAML, or is not a mapping.
 */
export function parseFrontMatter(text: string, file: string): FrontMatter {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const firstEnd = lineEnd(text, start);
  if (!FENCE.test(text.slice(start, firstEnd).replace(/\r$/, ""))) return { data: {}, body: text.slice(start), bodyLine: 1 };
  let at = nextLine(text, firstEnd);
  const yamlStart = at;
  let line = 2;
  while (at < text.length) {
    const end = lineEnd(text, at);
    if (FENCE.test(text.slice(at, end).replace(/\r$/, ""))) {
      const data = parseYaml(text.slice(yamlStart, at), file);
      return { data, body: text.slice(nextLine(text, end)), bodyLine: line + 1 };
    }
    at = nextLine(text, end);
    line++;
  }
  throw new FrontMatterError(file, 1, "the front matter that starts here is never closed by a line `---`");
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf("\n", from);
  return end === -1 ? text.length : end;
}

function nextLine(text: string, end: number): number {
  return end < text.length ? end + 1 : end;
}

/** The YAML between the fences (which starts on the file's line 2) as a mapping. */
function parseYaml(yaml: string, file: string): Record<string, unknown> {
  const lines = new LineCounter();
  const doc = parseDocument(yaml, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const line = lines.linePos(error.pos[0]).line + 1;
    throw new FrontMatterError(file, line, `front matter is not valid YAML: ${firstLine(error.message)}`);
  }
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new FrontMatterError(file, 2, "front matter must be YAML keys and values (`key: value` lines)");
  }
  return value as Record<string, unknown>;
}

function firstLine(message: string): string {
  return message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}
