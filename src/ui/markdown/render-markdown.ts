/**
 * Markdown (the model's answer) as terminal lines, parsed by `marked`: headings, emphasis, lists, block quotes
 * (marked `│`, never `>` like an echoed prompt), tables fitted to the width, links with their address, and code
 * fences coloured by language (highlight.ts) and never wrapped: a long code line stays one line for the
 * terminal to wrap, so copying it gives the original. Prose wraps at words by display width. Every line is
 * self-contained (its styles opened and closed on it), so any line can be redrawn alone. Without colour
 * (`NO_COLOR`) the same layout comes without escape sequences, headings keep their `#` and code spans their
 * backticks.
 */
import { Lexer, type Token, type Tokens } from "marked";
import { displayWidth, graphemes } from "../output/width.js";
import { highlightLines } from "./highlight.js";

interface Style {
  open: string;
  close: string;
}

const BOLD: Style = { open: "\x1b[1m", close: "\x1b[22m" };
const ITALIC: Style = { open: "\x1b[3m", close: "\x1b[23m" };
const UNDERLINE: Style = { open: "\x1b[4m", close: "\x1b[24m" };
const STRIKE: Style = { open: "\x1b[9m", close: "\x1b[29m" };
const DIM: Style = { open: "\x1b[2m", close: "\x1b[22m" };
const CODE: Style = { open: "\x1b[36m", close: "\x1b[39m" };
const LINK: Style = { open: "\x1b[34;4m", close: "\x1b[39;24m" };
const TAB_STOP = 8;

export interface MarkdownLayout {
  /** Columns for prose (code lines are never cut to it). */
  width: number;
  /** Styles allowed (a terminal, NO_COLOR unset). */
  color: boolean;
}

/** `source` laid out as lines for a terminal. */
export function renderMarkdown(source: string, layout: MarkdownLayout): string[] {
  const r = new Renderer(layout.color);
  return r.blocks(Lexer.lex(source, { gfm: true }), Math.max(10, layout.width));
}

class Renderer {
  constructor(private readonly color: boolean) {}

  private styled(text: string, styles: readonly Style[]): string {
    if (!this.color || styles.length === 0 || text === "") return text;
    const open = styles.map((s) => s.open).join("");
    const close = [...styles].reverse().map((s) => s.close).join("");
    // Each word carries its own styles, so lines wrapped anywhere stay self-contained.
    return text.replace(/[^ ]+/g, (word) => `${open}${word}${close}`);
  }

  /** Blocks one after another, a blank line between them unless `tight` (the parts of a tight list's item). */
  blocks(tokens: readonly Token[], width: number, tight = false): string[] {
    const out: string[] = [];
    for (const token of tokens) {
      const lines = this.block(token, width);
      if (lines.length === 0) continue;
      if (out.length > 0 && !tight) out.push("");
      out.push(...lines);
    }
    return out;
  }

  private block(token: Token, width: number): string[] {
    switch (token.type) {
      case "space":
      case "def":
        return [];
      case "heading": {
        const t = token as Tokens.Heading;
        const styles = t.depth === 1 ? [BOLD, UNDERLINE] : [BOLD];
        const text = this.inline(t.tokens, styles);
        return wrap(this.color ? text : `${"#".repeat(t.depth)} ${text}`, width);
      }
      case "paragraph":
        return wrap(this.inline((token as Tokens.Paragraph).tokens, []), width);
      case "text": {
        const t = token as Tokens.Text;
        return wrap(t.tokens ? this.inline(t.tokens, []) : t.text, width);
      }
      case "code":
        return this.code(token as Tokens.Code);
      case "blockquote": {
        const bar = this.styled("│", [DIM]);
        return this.blocks((token as Tokens.Blockquote).tokens, width - 2).map((line) => `${bar} ${line}`);
      }
      case "list":
        return this.list(token as Tokens.List, width);
      case "table":
        return this.table(token as Tokens.Table, width);
      case "hr":
        return [this.styled("─".repeat(Math.min(width, 80)), [DIM])];
      case "html":
        return wrap((token as Tokens.HTML).text.trimEnd(), width);
      default:
        return "raw" in token && typeof token.raw === "string" ? wrap(token.raw.trimEnd(), width) : [];
    }
  }

  private code(token: Tokens.Code): string[] {
    const lang = token.lang?.trim().split(/\s+/)[0] ?? "";
    const text = token.text.replace(/\n$/, "");
    const lines = (this.color && lang ? highlightLines(text, lang) : undefined) ?? text.split("\n");
    return [this.styled(`\`\`\`${lang}`, [DIM]), ...lines.map(expandTabs), this.styled("```", [DIM])];
  }

  private list(token: Tokens.List, width: number): string[] {
    const out: string[] = [];
    const start = typeof token.start === "number" ? token.start : 1;
    const markers = token.items.map((_, i) => (token.ordered ? `${start + i}.` : "•"));
    const markerWidth = Math.max(...markers.map((m) => m.length)) + 1;
    token.items.forEach((item, i) => {
      const task = item.task ? (item.checked ? "[x] " : "[ ] ") : "";
      const inner = this.blocks(item.tokens.filter((t) => t.type !== "checkbox"), width - markerWidth, !token.loose);
      if (token.loose && i > 0) out.push("");
      inner.forEach((line, j) => {
        const lead = j === 0 ? `${this.styled(markers[i]!, [DIM])}${" ".repeat(markerWidth - markers[i]!.length)}${task}` : " ".repeat(markerWidth);
        out.push(line === "" ? "" : `${lead}${line}`);
      });
      if (inner.length === 0) out.push(`${markers[i]} ${task}`.trimEnd());
    });
    return out;
  }

  private table(token: Tokens.Table, width: number): string[] {
    const header = token.header.map((cell) => this.inline(cell.tokens, [BOLD]));
    const rows = token.rows.map((row) => row.map((cell) => this.inline(cell.tokens, [])));
    const columns = header.length;
    const natural = header.map((h, c) => Math.max(1, displayWidth(h), ...rows.map((r) => displayWidth(r[c] ?? ""))));
    const widths = fitColumns(natural, width - 3 * (columns - 1));
    const sep = this.styled("│", [DIM]);
    const line = (cells: string[]): string[] => {
      const wrapped = widths.map((w, c) => wrap(cells[c] ?? "", w, true));
      const height = Math.max(...wrapped.map((w) => w.length));
      return Array.from({ length: height }, (_, i) =>
        wrapped
          .map((cell, c) => pad(cell[i] ?? "", widths[c]!, token.align[c] ?? null))
          .join(` ${sep} `)
          .trimEnd(),
      );
    };
    const rule = this.styled(widths.map((w) => "─".repeat(w)).join("─┼─"), [DIM]);
    return [...line(header), rule, ...rows.flatMap(line)];
  }

  private inline(tokens: readonly Token[] | undefined, styles: readonly Style[]): string {
    let out = "";
    for (const token of tokens ?? []) {
      switch (token.type) {
        case "text": {
          const t = token as Tokens.Text;
          out += t.tokens ? this.inline(t.tokens, styles) : this.styled(t.text.replace(/\n/g, " "), styles);
          break;
        }
        case "escape":
          out += this.styled((token as Tokens.Escape).text, styles);
          break;
        case "strong":
          out += this.inline((token as Tokens.Strong).tokens, [...styles, BOLD]);
          break;
        case "em":
          out += this.inline((token as Tokens.Em).tokens, [...styles, ITALIC]);
          break;
        case "del":
          out += this.inline((token as Tokens.Del).tokens, [...styles, STRIKE]);
          break;
        case "codespan": {
          const text = (token as Tokens.Codespan).text;
          out += this.color ? this.styled(text, [...styles, CODE]) : `\`${text}\``;
          break;
        }
        case "br":
          out += "\n";
          break;
        case "link": {
          const t = token as Tokens.Link;
          const text = this.inline(t.tokens, [...styles, LINK]);
          const href = t.href.replace(/^mailto:/, "");
          out += href === t.text ? text : `${text} ${this.styled(`(${href})`, [DIM])}`;
          break;
        }
        case "image": {
          const t = token as Tokens.Image;
          out += this.styled(`[image: ${t.text}] (${t.href})`, [...styles, DIM]);
          break;
        }
        default:
          out += "text" in token && typeof token.text === "string" ? this.styled(token.text, styles) : "";
      }
    }
    return out;
  }
}

/** Prose wrapped at spaces to `width` columns; `cut`: a word wider than a line is cut (table cells). */
function wrap(text: string, width: number, cut = false): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    let column = 0;
    for (const word of paragraph.split(/ +/)) {
      if (word === "") continue;
      const pieces = cut ? cutWord(word, width) : [word];
      for (const piece of pieces) {
        const w = displayWidth(piece);
        if (column > 0 && column + 1 + w > width) {
          lines.push(line);
          line = "";
          column = 0;
        }
        line += column > 0 ? ` ${piece}` : piece;
        column += (column > 0 ? 1 : 0) + w;
      }
    }
    lines.push(line);
  }
  return lines;
}

/** A (styled) word cut into pieces of at most `width` columns, each carrying the word's styles. */
function cutWord(word: string, width: number): string[] {
  if (displayWidth(word) <= width) return [word];
  const [, open = "", body = "", close = ""] = /^((?:\x1b\[[\d;]*m)*)(.*?)((?:\x1b\[[\d;]*m)*)$/s.exec(word) ?? [];
  const pieces: string[] = [];
  let piece = "";
  for (const g of graphemes(body)) {
    if (piece !== "" && displayWidth(piece + g) > width) {
      pieces.push(`${open}${piece}${close}`);
      piece = "";
    }
    piece += g;
  }
  pieces.push(`${open}${piece}${close}`);
  return pieces;
}

/** Column widths fitting `room`: each its natural width, the widest shrunk first (to no less than 3). */
function fitColumns(natural: number[], room: number): number[] {
  const widths = [...natural];
  let excess = widths.reduce((a, b) => a + b, 0) - room;
  while (excess > 0) {
    const widest = Math.max(...widths);
    if (widest <= 3) break;
    const at = widths.indexOf(widest);
    const next = Math.max(3, ...widths.filter((_, i) => i !== at), widest - excess);
    const cut = Math.max(1, Math.min(widest - next, excess));
    widths[at] = widest - cut;
    excess -= cut;
  }
  return widths;
}

function pad(text: string, width: number, align: "left" | "right" | "center" | null): string {
  const room = Math.max(0, width - displayWidth(text));
  if (align === "right") return " ".repeat(room) + text;
  if (align === "center") return " ".repeat(Math.floor(room / 2)) + text + " ".repeat(Math.ceil(room / 2));
  return text + " ".repeat(room);
}

/** Tabs as the spaces a terminal would move by (its width known, and a copy gives the same text). */
function expandTabs(line: string): string {
  if (!line.includes("\t")) return line;
  let out = "";
  let column = 0;
  for (const part of line.split(/(\t)/)) {
    if (part === "\t") {
      const n = TAB_STOP - (column % TAB_STOP);
      out += " ".repeat(n);
      column += n;
    } else {
      out += part;
      column += displayWidth(part);
    }
  }
  return out;
}
