/**
 * Renders a turn for a person: the answer streamed as it arrives, thinking streamed dimmed and apart from it,
 * tool calls as blocks (tool-blocks.ts). In print mode the answer goes to stdout and the rest to stderr; interactive
 * mode sends both to the terminal.
 *
 * An attempt that fails and is retried is void (SPEC §3 rule 7). Where the answer goes to a terminal it is
 * streamed live and a discarded attempt is called out; elsewhere (a pipe, a file) each attempt's text is held
 * and written only once its message is complete, so what was discarded never reaches the output at all.
 */
import type { TurnReceiver } from "../../agent/agent.js";
import type { ContentBlockType, ToolResultBlock } from "../../model/blocks.js";
import type { BlockMeta, RetryNotice } from "../../providers/types.js";
import type { ToolCall, ToolOutcome, ToolProgress } from "../../tools/types.js";
import { retryText } from "./notices.js";
import { outputOrder } from "./output-order.js";
import type { LineSink } from "./sink.js";
import { ToolBlocks, type ToolBlockOptions } from "./tool-blocks.js";

export class TerminalRenderer implements TurnReceiver {
  private readonly blockTypes = new Map<number, ContentBlockType>();
  /** This attempt's answer text, held until its message completes (not live). */
  private held: string[] = [];
  /** Whether this attempt has put answer text on the screen (live). */
  private shownThisAttempt = false;
  private readonly blocks: ToolBlocks;

  constructor(
    private readonly answer: LineSink,
    private readonly aside: LineSink,
    /** Stream the answer as it arrives (a terminal); false holds each message's text until it is complete. */
    private readonly live = true,
    /** How tool blocks are drawn (on `aside`): the ToolSet that renders them, redrawn live or printed once. */
    blocks: ToolBlockOptions = {},
  ) {
    this.blocks = new ToolBlocks(aside, blocks);
  }

  onMessageStart(): void {
    this.blockTypes.clear();
    this.held = [];
    this.shownThisAttempt = false;
  }

  onBlockStart(type: ContentBlockType, index: number, _meta?: BlockMeta): void {
    this.blockTypes.set(index, type);
    if (type === "thinking") {
      this.answer.endLine();
      this.aside.endLine();
      if (!this.aside.color) this.aside.write("(thinking) ");
    } else if (type === "text") {
      this.aside.endLine();
    }
  }

  onContentDelta(index: number, delta: string): void {
    const type = this.blockTypes.get(index);
    if (type === "text") this.writeAnswer(delta);
    else if (type === "thinking") this.aside.dim(delta);
  }

  onBlockComplete(index: number): void {
    if (this.blockTypes.get(index) === "thinking") this.aside.endLine();
  }

  onMessageComplete(): void {
    if (this.live) return;
    for (const text of this.held) this.answer.write(text);
    this.held = [];
  }

  onRetry(notice: RetryNotice): void {
    this.held = [];
    this.answer.endLine();
    this.aside.endLine();
    if (this.shownThisAttempt) this.aside.dim("awl: the answer above was cut off; it is discarded and asked for again\n");
    this.shownThisAttempt = false;
    this.aside.dim(retryText(notice));
  }

  onToolStart(call: ToolCall): void {
    this.answer.endLine();
    this.aside.endLine();
    this.blocks.start(call);
  }

  onToolProgress(call: ToolCall, update: ToolProgress): void {
    this.blocks.update(call, update);
  }

  onToolEnd(call: ToolCall, outcome: ToolOutcome, result: ToolResultBlock): void {
    this.blocks.end(call, outcome, result);
  }

  private writeAnswer(text: string): void {
    if (!this.live) {
      this.held.push(text);
      return;
    }
    this.answer.write(text);
    if (text !== "") this.shownThisAttempt = true;
  }

  /**
   * Ends the answer's last line (call once the turn is over); held text of an unfinished message is dropped.
   * Resolves once everything is written (tool blocks render asynchronously).
   */
  finish(): Promise<void> {
    this.answer.endLine();
    this.aside.endLine();
    return outputOrder.idle();
  }
}
