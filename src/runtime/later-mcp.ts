/**
 * The MCP servers of an interactive run when nothing has to be asked about them first (no project `.mcp.json`):
 * their set-up (awl's MCP modules, the configured servers, the tool-list cache) runs once the prompt is drawn
 * (`begin()`) instead of before it, or at the first model call if that comes sooner. Until then no MCP tool is
 * offered; every model call waits for the set-up (never for the servers themselves), so the first one offers the
 * servers' cached tools as it did when they were set up before the prompt.
 */
import type { McpToolSet } from "../extensions/mcp/mcp-tool-set.js";
import type { PrewarmReason, ToolCall, ToolDefinition, ToolOutcome, ToolProgress, ToolSet } from "../tools/types.js";

const NONE: readonly ToolDefinition[] = [];

export class LaterMcp implements ToolSet {
  private started: Promise<McpToolSet | undefined> | undefined;
  /** Where the set-up's problems go (`begin(report)`); `warn` until then. */
  private report: ((text: string) => void) | undefined;
  /** The servers' tool set, once set up (undefined before, and when no server is configured). */
  current: McpToolSet | undefined;

  constructor(
    /** Sets the servers up; what it finds wrong goes to the `warn` it is given. */
    private readonly setup: (warn: (text: string) => void) => Promise<McpToolSet | undefined>,
    private readonly warn: (text: string) => void,
  ) {}

  /**
   * Sets the servers up (once); settles with their tool set. `report` takes the problems found meanwhile (the
   * interactive mode prints them above its prompt). Never rejects: a failure is reported.
   */
  begin(report?: (text: string) => void): Promise<McpToolSet | undefined> {
    if (report) this.report = report;
    const problem = (text: string): void => (this.report ?? this.warn)(text);
    this.started ??= this.setup(problem).then(
      (mcp) => (this.current = mcp),
      (error: unknown) => {
        problem(`the MCP servers could not be set up: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      },
    );
    return this.started;
  }

  /** Closes the servers if their set-up began (without beginning it). */
  async close(): Promise<void> {
    await (await this.started)?.close();
  }

  definitions(): readonly ToolDefinition[] {
    return this.current?.definitions() ?? NONE;
  }

  prewarm(why?: PrewarmReason): void {
    this.current?.prewarm(why);
  }

  instructions(): readonly string[] {
    return this.current?.instructions() ?? [];
  }

  async refresh(): Promise<void> {
    await (await this.begin())?.refresh();
  }

  async execute(call: ToolCall, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome> {
    const mcp = await this.begin();
    if (!mcp) return { status: "result", content: `unknown tool "${call.name}"`, is_error: true };
    return mcp.execute(call, signal, onProgress);
  }
}
