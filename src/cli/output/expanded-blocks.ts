/**
 * Tool blocks drawn again expanded (Ctrl-O: the last one, Alt-O: all of the last turn's): the render's every
 * line, else every line of the text the model got. They are printed anew below the output, never redrawn where
 * the collapsed block was (it may have scrolled away), with a dimmed line saying so.
 */
import type { ToolSet } from "../../tools/types.js";
import { drawBlock, renderBody, type ToolBlockData } from "./tool-block.js";

/** The text printed for `blocks` expanded at `columns` (ends with a newline); `none` when there are none. */
export async function expandedBlocksText(blocks: readonly ToolBlockData[], tools: ToolSet | undefined, columns: number, color: boolean): Promise<string> {
  const dim = (text: string) => (color ? `\x1b[2m${text}\x1b[22m` : text);
  if (blocks.length === 0) return `${dim("(no tool result to expand yet)")}\n`;
  const view = { width: Math.max(20, columns - 3), height: Number.MAX_SAFE_INTEGER, expand: true };
  const drawn = await Promise.all(blocks.map(async (block) => drawBlock(block, await renderBody(tools, block, view), view, color)));
  const what = blocks.length === 1 ? "the last tool result" : `the last turn's ${blocks.length} tool results`;
  return `${[dim(`(${what}, expanded: printed again below)`), ...drawn.flat()].join("\n")}\n`;
}
