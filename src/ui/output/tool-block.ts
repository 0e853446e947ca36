/**
 * One tool block as lines of text: a header (status mark, tool name, the `ctx:title` text or else the input,
 * progress while running) and a body. The body is the tool's `render(state, view)` output when the ToolSet can
 * render the tool and a `ctx:show` state exists; otherwise the state as short JSON while the call runs, and
 * the result's summary (or model-facing text) once it ended. Used live, at the end of a call, and on resume.
 */
import type { ToolRenderView, ToolSet } from "../../tools/types.js";
import { stripControls } from "../safe-text.js";
import { STILL_MARK } from "./spinner.js";
import { displayWidth, fitWidth } from "./width.js";
import { wrapText } from "./wrap-text.js";

/** The space a block's body may take (handed to `render(state, view)` as is). */
export type BlockView = ToolRenderView;

export interface ToolBlockData {
  name: string;
  /** Raw JSON input, shown in the header when the tool set no title. */
  input: string;
  title?: string;
  progress?: { fraction: number; detail?: string };
  /** The last `ctx:show` state, when one was published (`null` is a state too). */
  shown?: { state: unknown };
  /** `cancelled`: stopped before it ended (Ctrl-C, Esc, awl terminated). */
  status: "running" | "ok" | "error" | "cancelled";
  /** While running on a live terminal: how long the call has run (shown from one second on). */
  elapsedMs?: number;
  /** While running on a live terminal: the spinner's mark (default the still `…`). */
  spinner?: string;
  /** Once ended: the summary, or the text the model got. */
  result?: string;
  /** Once ended: the whole text the model got (shown when the block is drawn expanded). */
  full?: string;
  /** What the call printed while its block was live: the last lines, and how many there were in all. */
  logs?: { lines: string[]; total: number };
}

/** Printed lines a block keeps (the last ones). */
export const LOG_LINES = 5;

/** A body from `render`: its lines, or none (fallback), with a note when the render failed. */
export interface RenderedBody {
  lines?: string[];
  note?: string;
}

const MARKS = { ok: "✓", error: "✗", cancelled: "⊘" } as const;
/** The marks' colours (SGR): green, red, yellow; a running block's mark is dimmed. */
const MARK_COLORS = { running: "2", ok: "32", error: "31", cancelled: "33" } as const;

/**
 * Renders the block's body through `tools.render` (never the tool's `run`). No render, no state, or an
 * undefined answer: no lines (the caller falls back). A failed render: no lines and a one-line note.
 */
export async function renderBody(tools: ToolSet | undefined, block: ToolBlockData, view: BlockView): Promise<RenderedBody> {
  if (!block.shown || !tools?.render) return {};
  try {
    const out = await tools.render(block.name, block.shown.state, view);
    if (out === undefined) return {};
    return { lines: typeof out === "string" ? out.split("\n") : out.map(String) };
  } catch (error) {
    return { note: `render failed, plain text shown: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Lines of a failed call's message at most: its start and its end are kept (a denial's `--allow` hint ends it). */
const ERROR_LINES = 8;

/**
 * The block as lines (no newlines), each cut to fit `view.width` plus the two-space indent (`whole`: not cut,
 * for output that is not a terminal); with `view.expand`, the body whole: every line of the render, else of the
 * text the model got (those lines not cut). A failed call's message is wrapped at words, never cut at the side.
 */
export function drawBlock(block: ToolBlockData, body: RenderedBody, view: BlockView, color: boolean, whole = false): string[] {
  const dim = (text: string) => (color ? `\x1b[2m${text}\x1b[22m` : text);
  const lineWidth = whole ? Number.POSITIVE_INFINITY : view.width + 2;
  const textWidth = whole ? Number.POSITIVE_INFINITY : view.width;
  const cut = (text: string, max: number) => oneLine(text, whole ? Number.POSITIVE_INFINITY : max);
  // Progress and elapsed time come after the title, which is cut to leave room for them.
  let status = "";
  if (block.status === "running" && block.progress) {
    const { fraction, detail } = block.progress;
    status += ` ${Math.round(fraction * 100)}%${detail ? ` ${cut(detail, 40)}` : ""}`;
  }
  if (block.status === "running" && block.elapsedMs !== undefined && block.elapsedMs >= 1000) status += ` ${Math.floor(block.elapsedMs / 1000)}s`;
  const mark = block.status === "running" ? (block.spinner ?? STILL_MARK) : MARKS[block.status];
  const lead = `${mark} ${block.name} `;
  const room = Math.max(8, lineWidth - displayWidth(lead) - displayWidth(status));
  const label = block.title !== undefined ? cut(block.title, room) : cut(inputLabel(block.input), Math.min(100, room));
  const header = fitWidth(`${lead}${label}${status}`, lineWidth);
  const reset = block.status === "running" ? "22" : "39";
  const lines = [color ? `\x1b[${MARK_COLORS[block.status]}m${mark}\x1b[${reset}m${header.slice(mark.length)}` : header];
  const indent = (text: string) => `  ${fitWidth(text, textWidth)}`;
  const failure = (text: string) => (block.status === "error" ? errorLines(text, textWidth) : [cut(text, view.width)]).map((line) => dim(indent(line)));
  if (body.note) lines.push(dim(indent(cut(body.note, view.width))));
  if (body.lines) {
    const shown = capLines(body.lines.map(plain), view);
    lines.push(...shown.map(indent));
    if ((block.status === "error" || block.status === "cancelled") && block.result) lines.push(...failure(block.result));
  } else if (block.status === "running") {
    if (block.shown) lines.push(dim(indent(cut(compactJSON(block.shown.state), view.width))));
  } else if (view.expand && (block.full ?? block.result)) {
    // Expanded: every line of what the model got, long lines left to the terminal to wrap.
    lines.push(...plain(block.full ?? block.result!).replace(/\n+$/, "").split("\n").map((line) => `  ${line}`));
  } else if (block.result) {
    lines.push(...failure(block.result));
  }
  if (block.logs) {
    const earlier = block.logs.total - block.logs.lines.length;
    if (earlier > 0) lines.push(dim(indent(`… ${earlier} earlier printed line${earlier === 1 ? "" : "s"}`)));
    lines.push(...block.logs.lines.map((line) => dim(indent(plain(line)))));
  }
  return lines;
}

/**
 * The fields that say what a call acts on, as the std tools' `ctx:title` shows them: a call that never ran (denied,
 * refused, cancelled while waiting) or has not set its title yet is labelled by the first of them it has.
 */
const SUBJECT_FIELDS = ["command", "path", "file_path", "url", "pattern", "query"];

/** A header's label for a call without a title: its subject field (first line), else the raw JSON input. */
function inputLabel(input: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    return input;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return input;
  for (const field of SUBJECT_FIELDS) {
    const value = (parsed as Record<string, unknown>)[field];
    if (typeof value !== "string" || value.trim() === "") continue;
    // A command of several lines shows its first and says there is more (the question shows them all).
    const end = value.indexOf("\n");
    return end < 0 ? value : `${value.slice(0, end)} …`;
  }
  return input;
}

/** `text` on one line, cut to `max` columns. */
export function oneLine(text: string, max: number): string {
  const flat = plain(text).replace(/\s+/g, " ").trim();
  // Cut to `max` columns, so a line never wraps (a wrapped line would break the in-place redraw).
  return fitWidth(flat, max);
}

/** A failed call's message on lines of at most `width` columns, wrapped at words; a long one keeps its start and end. */
function errorLines(text: string, width: number): string[] {
  const flat = plain(text).replace(/\s+/g, " ").trim();
  const lines = Number.isFinite(width) ? wrapText(flat, width).split("\n").map((line) => fitWidth(line, width)) : [flat];
  if (lines.length <= ERROR_LINES) return lines;
  const head = 3;
  const tail = ERROR_LINES - head - 1;
  return [...lines.slice(0, head), `… ${lines.length - head - tail} more lines`, ...lines.slice(-tail)];
}

function capLines(lines: string[], view: BlockView): string[] {
  if (view.expand || lines.length <= view.height) return lines;
  const kept = Math.max(1, view.height - 1);
  return [...lines.slice(0, kept), `… ${lines.length - kept} more lines`];
}

/**
 * Without escape sequences and control characters: an extension's text (or a saved snapshot's) must not move
 * the cursor or restyle the terminal, and tabs would make the width unknown.
 */
function plain(text: string): string {
  return stripControls(text).replace(/\t/g, "  ");
}

function compactJSON(state: unknown): string {
  try {
    return JSON.stringify(state) ?? String(state);
  } catch {
    return String(state);
  }
}
