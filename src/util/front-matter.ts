/**
 * YAML front matter of a Markdown file (skills, prompt commands, agent definitions): a first line `---`, YAML up
 * to the next `---` line, then the body. Parsed with the `yaml` package; an error names the file and the line.
 */
import { parse, YAMLParseError } from "yaml";

/** A file's front matter and what follows it. */
export interface FrontMatter {
  /** The YAML mapping (`{}` when the file has no front matter). */
  data: Record<string, unknown>;
  /** The Markdown after the closing `---` (the whole text when there is no front matter). */
  body: string;
  /** The 1-based line of `file` where the body starts. */
  bodyLine: number;
}

/** Thrown for front matter that is not closed, not YAML, or not a mapping; the message names `file` and the line. */
export class FrontMatterError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly line: number,
  ) {
    super(message);
    this.name = "FrontMatterError";
  }
}

const FENCE = /^---[ \t]*$/;

/** Splits `text` (the contents of `file`) into its front matter and body. Throws a {@link FrontMatterError}. */
export function parseFrontMatter(text: string, file: string): FrontMatter {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const lines = source.split(/\r?\n/);
  if (lines.length === 0 || !FENCE.test(lines[0]!)) return { data: {}, body: source, bodyLine: 1 };
  const end = lines.findIndex((line, i) => i > 0 && FENCE.test(line));
  if (end < 0) throw new FrontMatterError(`${file}:1: the front matter opened with "---" is never closed by a "---" line`, file, 1);
  const yamlText = lines.slice(1, end).join("\n");
  let data: unknown;
  try {
    data = parse(yamlText, { uniqueKeys: true });
  } catch (e) {
    const line = e instanceof YAMLParseError && e.linePos ? e.linePos[0].line + 1 : 2;
    // The message's first line, without its "at line N, column M:" (the line of the file is given instead).
    const reason = (e instanceof Error ? e.message : String(e)).split("\n")[0]!.replace(/ at line \d+, column \d+:$/, "");
    throw new FrontMatterError(`${file}:${line}: the front matter is not valid YAML: ${reason}`, file, line);
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== "object" || Array.isArray(data)) throw new FrontMatterError(`${file}:2: the front matter should be a YAML mapping (key: value lines)`, file, 2);
  return { data: data as Record<string, unknown>, body: lines.slice(end + 1).join("\n"), bodyLine: end + 2 };
}
