/**
 * What the expand keys print again, whole (Ctrl-O: the last of the last turn's tool blocks and thinking, Alt-O:
 * all of them): a tool block's render, every line of it, else every line of the text the model got; a thinking,
 * every line of it. They are printed anew below the output, never redrawn where the collapsed form was (it may
 * have scrolled away), with a dimmed line saying so.
 */
import type { ToolSet } from "../../tools/types.js";
import { FlowText } from "./flow-text.js";
import type { ThinkingData } from "./thinking-region.js";
import { drawBlock, renderBody, type ToolBlockData } from "./tool-block.js";

/** Something of a turn shown collapsed that the expand keys show whole. */
export type Expandable = { kind: "tool"; block: ToolBlockData } | ThinkingData;

/** The text printed for `items` expanded at `columns` (ends with a newline). */
export async function expandedBlocksText(items: readonly Expandable[], tools: ToolSet | undefined, columns: number, color: boolean): Promise<string> {
  const dim = (text: string) => (color ? `\x1b[2m${text}\x1b[22m` : text);
  if (items.length === 0) return `${dim("(no tool result or thinking to expand yet)")}\n`;
  const view = { width: Math.max(20, columns - 3), height: Number.MAX_SAFE_INTEGER, expand: true };
  const drawn = await Promise.all(
    items.map(async (item) => (item.kind === "tool" ? drawBlock(item.block, await renderBody(tools, item.block, view), view, color) : thinkingLines(item, columns, dim))),
  );
  return `${[dim(`(${describe(items)}, expanded: printed again below)`), ...drawn.flat()].join("\n")}\n`;
}

/** A thinking whole: a header, then its text wrapped at words, dimmed. */
function thinkingLines(thinking: ThinkingData, columns: number, dim: (text: string) => string): string[] {
  const flow = new FlowText(() => Math.max(20, columns - 1));
  const text = `${flow.push(thinking.text)}${flow.end()}`.replace(/\n+$/, "");
  return [dim(`▾ thought for ${thinking.seconds}s`), ...text.split("\n").map(dim)];
}

function describe(items: readonly Expandable[]): string {
  const tools = items.filter((item) => item.kind === "tool").length;
  const thinking = items.length - tools;
  if (items.length === 1) return tools === 1 ? "the last tool result" : "the last thinking";
  const parts = [thinking === 1 ? "thinking" : thinking > 1 ? `${thinking} thinking blocks` : "", tools > 0 ? `${tools} tool result${tools === 1 ? "" : "s"}` : ""];
  return `the last turn's ${parts.filter(Boolean).join(" and ")}`;
}
