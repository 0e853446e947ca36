/**
 * Subcommands: `awl NAME ...` runs `src/cli/commands/NAME.ts`, imported only when used.
 * To add one, add a line here and a module exporting `run(argv): Promise<number>` (the exit code).
 */
export interface SubcommandModule {
  run(argv: readonly string[]): Promise<number>;
}

export interface Subcommand {
  /** e.g. "config" or "tool call NAME JSON". */
  usage: string;
  summary: string;
  load(): Promise<SubcommandModule>;
}

export const SUBCOMMANDS: Record<string, Subcommand> = {
  config: { usage: "config", summary: "show the resolved configuration and where each value came from", load: () => import("./commands/config.js") },
};
