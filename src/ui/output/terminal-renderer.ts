/**
 * Renders a turn for a person: the answer streamed as it arrives, thinking streamed dimmed and apart from it
 * (in the interactive mode as a live region collapsed to one line once it ends: thinking-region.ts), tool calls
 * as blocks (tool-blocks.ts). In print mode the answer goes to stdout and the rest to stderr; interactive
 * mode sends both to the terminal.
 *
 * An attempt that fails and is retried is void (SPEC §3 rule 7). Where the answer goes to a terminal it is
 * streamed live and a discarded attempt is called out; elsewhere (a pipe, a file) each attempt's text is held
 * and written only once its message is complete, so what was discarded never reaches the output at all.
 *
 * On a terminal (`layout` given) the model's text is made safe and drawn as Markdown while it streams
 * (markdown/markdown-stream.ts) once that renderer is loaded (markdown/load.ts), else wrapped at word boundaries
 * (flow-text.ts); a "waiting for the model" line shows until the first token arrives (`activity`).
 */
import type { TurnReceiver } from "../../agent/agent.js";
import type { ContentBlock, ContentBlockType, ToolResultBlock, ToolUseBlock } from "../../model/blocks.js";
import type { BlockMeta, RetryNotice, ServerToolUse } from "../../providers/types.js";
import type { ToolCall, ToolOutcome, ToolProgress } from "../../tools/types.js";
import { ActivityLine } from "./activity.js";
import { FlowText } from "./flow-text.js";
import { markdownStream } from "../markdown/load.js";
import type { MarkdownStream } from "../markdown/markdown-stream.js";
import { compactionText, retryText } from "./notices.js";
import type { CompactionOutcome } from "../../agent/context-layer.js";
import { outputOrder } from "./output-order.js";
import type { LineSink } from "./sink.js";
import { ToolBlocks, type ToolBlockOptions } from "./tool-blocks.js";
import type { ToolBlockData } from "./tool-block.js";
import type { Expandable } from "./expanded-blocks.js";
import { ThinkingRegion } from "./thinking-region.js";
import { wrapText } from "./wrap-text.js";
import { sourcesText } from "./sources-text.js";

/** How a renderer lays text out on terminals: the width of each stream's terminal, when it is one. */
export interface TerminalLayout {
  /** The answer's terminal width now; absent: the answer is written as it comes (a pipe, a file). */
  answerColumns?: () => number;
  /** Likewise for the thinking (the `aside` stream). */
  asideColumns?: () => number;
  /** Show a "waiting for the model" line on `aside` until the first token of each model call. */
  activity?: boolean;
  /** The rows the answer may redraw (for Markdown's live region); default the process's stdout's height, else 24. */
  answerRows?: () => number;
  /** Each model call's message (or a failed attempt) ended, its usage recorded: the figures shown may change. */
  onUsage?: () => void;
  /** With `asideColumns`: thinking is drawn as a live region and collapsed to one line once it ends (thinking-region.ts). */
  collapseThinking?: boolean;
}

const THINKING_MARK = "(thinking) ";

export class TerminalRenderer implements TurnReceiver {
  private readonly blockTypes = new Map<number, ContentBlockType>();
  /** This attempt's answer text, held until its message completes (not live). */
  private held: string[] = [];
  /** Whether this attempt has put answer text on the screen (live). */
  private shownThisAttempt = false;
  /** The provider ran a tool of its own since the last text block: the next one starts a new paragraph. */
  private afterServerTool = false;
  private readonly blocks: ToolBlocks;
  /** Text being laid out on a terminal, per stream (none: written as it comes). */
  private answerFlow: FlowText | undefined;
  /** The answer drawn as Markdown (instead of `answerFlow`), once the renderer is loaded. */
  private answerMarkdown: MarkdownStream | undefined;
  private thinkingFlow: FlowText | undefined;
  /** With `collapseThinking`: the thinking being streamed. */
  private thinking: ThinkingRegion | undefined;
  /** The tool blocks and thinking of this turn that ended, in that order (what the expand keys show again). */
  readonly ended: Expandable[] = [];
  private readonly activity: ActivityLine | undefined;
  /** Tool calls started and not ended yet. */
  private running = 0;
  /** Calls of the batch running now that have not ended (some may not have started: calls that run alone wait). */
  private unfinished = 0;

  constructor(
    private readonly answer: LineSink,
    private readonly aside: LineSink,
    /** Stream the answer as it arrives (a terminal); false holds each message's text until it is complete. */
    private readonly live = true,
    /** How tool blocks are drawn (on `aside`): the ToolSet that renders them, redrawn live or printed once. */
    blocks: ToolBlockOptions = {},
    private readonly layout: TerminalLayout = {},
  ) {
    this.blocks = new ToolBlocks(aside, blocks);
    if (layout.activity) this.activity = new ActivityLine(aside);
  }

  /** The turn's request is on its way: shows the waiting line (when asked for). */
  begin(): void {
    this.activity?.start();
  }

  onMessageStart(): void {
    this.blockTypes.clear();
    this.held = [];
    this.shownThisAttempt = false;
    this.afterServerTool = false;
  }

  onBlockStart(type: ContentBlockType, index: number, _meta?: BlockMeta): void {
    this.activity?.stop();
    this.blockTypes.set(index, type);
    if (type === "thinking") {
      this.endLines();
      const mark = this.aside.color ? "" : THINKING_MARK;
      const columns = this.layout.asideColumns;
      if (columns && this.layout.collapseThinking) this.thinking = new ThinkingRegion(this.aside, { columns, rows: this.rows });
      else this.thinkingFlow = columns ? new FlowText(columns, mark) : undefined;
    } else if (type === "text") {
      this.aside.endLine();
      if (this.afterServerTool) this.breakParagraph();
      this.afterServerTool = false;
      const columns = this.layout.answerColumns;
      if (columns) {
        // The layout counts columns from the start of a line.
        this.answer.endLine();
        const Markdown = this.live ? markdownStream() : undefined;
        if (Markdown) this.answerMarkdown = new Markdown(this.answer, { columns, rows: this.rows });
        else this.answerFlow = new FlowText(columns);
      }
    }
  }

  onContentDelta(index: number, delta: string): void {
    const type = this.blockTypes.get(index);
    if (type === "text" && this.answerMarkdown) {
      this.answerMarkdown.push(delta);
      if (delta !== "") this.shownThisAttempt = true;
    } else if (type === "text") this.writeAnswer(this.answerFlow ? this.answerFlow.push(delta) : delta);
    else if (type === "thinking" && this.thinking) this.thinking.push(delta);
    else if (type === "thinking") this.writeThinking(delta);
  }

  /** The rows the output may redraw in. */
  private readonly rows = (): number => this.layout.answerRows?.() ?? ((process.stdout.isTTY ? process.stdout.getWindowSize()[1] : 0) || 24);

  /** Collapses the thinking being streamed, if any (it ended, or the turn did); kept for the expand keys. */
  private endThinking(): void {
    if (this.thinking) this.ended.push(this.thinking.end());
    this.thinking = undefined;
  }

  onBlockComplete(index: number, block?: ContentBlock): void {
    const type = this.blockTypes.get(index);
    if (type === "image" && block?.type === "image") {
      // A picture the model made (Gemini image models): named here; the conversation and the session keep it.
      this.endLines();
      this.aside.dim(this.wrapped(`[image from the model: ${block.media_type}, ${Math.max(1, Math.round((block.data.length * 3) / 4 / 1024))} KB]\n`));
      this.shownThisAttempt = true;
    } else if (type === "text") {
      this.endAnswerFlow();
      // The pages the provider's own web search cited, under the text they back.
      const sources = block?.type === "text" && block.citations ? sourcesText(block.citations) : "";
      if (sources && this.live) {
        this.answer.endLine();
        this.writeAnswer(`\n${sources}`);
      } else if (sources && block?.type === "text") this.writeAnswer(`${block.text.endsWith("\n") ? "" : "\n"}\n${sources}`);
    } else if (type === "thinking") {
      this.endThinking();
      if (this.thinkingFlow) this.aside.dim(this.thinkingFlow.end());
      this.thinkingFlow = undefined;
      // Whatever the text held, nothing it styled outlives its block.
      if (this.layout.asideColumns && this.aside.color) this.aside.control("\x1b[0m");
      this.aside.endLine();
    }
  }

  /** The provider searched the web on its side: shown as a tool block that ended, between the texts around it. */
  onServerTool(use: ServerToolUse): void {
    this.activity?.stop();
    this.endLines();
    const failed = use.error !== undefined;
    const data: ToolBlockData = { name: use.name, input: JSON.stringify(use.input), status: failed ? "error" : "ok", ...(failed && { result: use.error }) };
    this.blocks.printEnded(data);
    this.ended.push({ kind: "tool", block: data });
    this.afterServerTool = true;
  }

  onMessageComplete(): void {
    this.layout.onUsage?.();
    this.activity?.stop();
    this.endAnswerFlow();
    if (this.live) return;
    for (const text of this.held) this.answer.write(text);
    this.held = [];
  }

  onRetry(notice: RetryNotice): void {
    this.layout.onUsage?.();
    this.activity?.stop();
    this.held = [];
    this.endAnswerFlow();
    this.thinkingFlow = undefined;
    this.thinking?.end();
    this.thinking = undefined;
    this.endLines();
    if (this.shownThisAttempt) this.aside.dim(this.wrapped("awl: the answer above was cut off; it is discarded and asked for again\n"));
    this.shownThisAttempt = false;
    this.aside.dim(this.wrapped(retryText(notice)));
    this.activity?.start();
  }

  /** A line of awl's own during the turn (an extension reloaded between model calls), never inside a block. */
  notice(text: string): void {
    this.activity?.stop();
    this.endLines();
    this.aside.dim(this.wrapped(`${text}\n`));
  }

  onCompaction(outcome: CompactionOutcome): void {
    this.activity?.stop();
    this.endLines();
    this.aside.dim(compactionText(outcome));
    this.activity?.start();
  }

  onToolBatchStart(calls: readonly ToolUseBlock[]): void {
    this.unfinished = calls.length;
  }

  onToolStart(call: ToolCall): void {
    this.activity?.stop();
    this.endLines();
    this.running++;
    this.blocks.start(call);
  }

  onToolProgress(call: ToolCall, update: ToolProgress): void {
    this.blocks.update(call, update);
  }

  onToolEnd(call: ToolCall, outcome: ToolOutcome, result: ToolResultBlock): void {
    const before = this.blocks.ended.length;
    this.blocks.end(call, outcome, result);
    for (const block of this.blocks.ended.slice(before)) this.ended.push({ kind: "tool", block });
    this.unfinished = Math.max(0, this.unfinished - 1);
    // The results go back to the model once every call of the batch ended (the waiting line written between two
    // calls would go under the blocks, and their next drawing below it): waiting for it again.
    if (--this.running === 0 && this.unfinished === 0) this.activity?.start();
  }

  /** The terminal was resized: live tool blocks are drawn again for the new width (streamed text wraps at it from the next word on). */
  resize(): void {
    this.answerMarkdown?.resize();
    this.blocks.relayout();
  }

  /** awl's own line, wrapped for the terminal when `aside` is one. */
  private wrapped(text: string): string {
    return this.layout.asideColumns ? wrapText(text, this.layout.asideColumns()) : text;
  }

  private writeThinking(delta: string): void {
    if (this.thinkingFlow) return this.aside.dim(this.thinkingFlow.push(delta));
    if (this.aside.color) return this.aside.dim(delta);
    // Without colour every line of thinking is marked.
    const lines = delta.split("\n");
    lines.forEach((line, i) => {
      if (i > 0) this.aside.write("\n");
      if (line !== "" && this.aside.atLineStart) this.aside.write(THINKING_MARK);
      this.aside.write(line);
    });
  }

  private endAnswerFlow(): void {
    this.answerMarkdown?.end();
    this.answerMarkdown = undefined;
    if (!this.answerFlow) return;
    this.writeAnswer(this.answerFlow.end());
    if (this.answer.color) this.answer.control("\x1b[0m");
    this.answerFlow = undefined;
  }

  private endLines(): void {
    this.answer.endLine();
    this.aside.endLine();
  }

  /**
   * A blank line between the answer's text so far and the text that comes after a server tool (they are separate
   * blocks; "…was born.Claude Shannon…" otherwise).
   */
  private breakParagraph(): void {
    if (!this.live) {
      const before = this.held.join("");
      if (before !== "" && !before.endsWith("\n\n")) this.held.push(before.endsWith("\n") ? "\n" : "\n\n");
      return;
    }
    if (!this.shownThisAttempt) return;
    this.answer.endLine();
    this.answer.write("\n");
  }

  private writeAnswer(text: string): void {
    if (!this.live) {
      this.held.push(text);
      return;
    }
    this.answer.write(text);
    if (text !== "") this.shownThisAttempt = true;
  }

  /** A question is about to be asked below the output: the live tool blocks leave the screen until `releaseBlocks`. */
  holdBlocks(): void {
    this.blocks.hold();
  }

  /** The question was answered: the live tool blocks are drawn again. */
  releaseBlocks(): void {
    this.blocks.release();
  }

  /**
   * awl is ending abruptly (a signal, an internal error): the screen is left final at once, the waiting line
   * gone, the answer's line ended, live tool blocks marked stopped with `note`.
   */
  interrupt(note: string): void {
    this.activity?.stop();
    this.answerMarkdown?.stop();
    this.answerMarkdown = undefined;
    this.thinking?.stop();
    this.thinking = undefined;
    // The blocks first: they are redrawn in place only while nothing was written below them.
    this.blocks.interrupt(note);
    const reset = this.aside.color ? "\x1b[0m" : "";
    this.aside.writeNow(`${reset}${this.answer.atLineStart && this.aside.atLineStart ? "" : "\n"}`);
  }

  /**
   * Ends the answer's last line (call once the turn is over); held text of an unfinished message is dropped.
   * Resolves once everything is written (tool blocks render asynchronously).
   */
  finish(): Promise<void> {
    this.activity?.stop();
    this.endThinking();
    this.blocks.close();
    this.endAnswerFlow();
    this.endLines();
    return outputOrder.idle();
  }
}
