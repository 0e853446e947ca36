/** What a slash command is (slash-commands.ts keeps the table of them) and what it is given when it runs. */
import type { LineSink } from "../../ui/output/sink.js";
import type { PickerItem } from "../../ui/prompts/picker.js";
import type { Runtime } from "../../runtime/runtime.js";

export interface SlashContext {
  runtime: Runtime;
  /** Writes a line of output for the user. */
  print(text: string): void;
  /** Leaves the interactive mode after this command. */
  exit(): void;
  /** The terminal, for commands that render turns (`/resume` redraws a session). */
  sink: LineSink;
  /** Lets the user choose from a list below the prompt (picker.ts); undefined when left without a choice. */
  pick<T>(title: string, items: readonly PickerItem<T>[], options?: { currentLabel?: string }): Promise<T | undefined>;
  /** Puts text into the prompt editor (a rewound prompt, to edit and send again). */
  setPrompt(text: string): void;
}

export interface SlashCommand {
  name: string;
  /** Other names that run it (`/quit` for `/exit`). */
  aliases?: string[];
  /** Shown in /help after the name, e.g. "[PROVIDER] NAME". */
  args?: string;
  summary: string;
  run(args: string, context: SlashContext): void | Promise<void>;
}
