/** `awl --help`. */
import { columnRow } from "../ui/output/wrap-text.js";
import { versionText } from "../version.js";
import { SUBCOMMANDS } from "./commands.js";
import { flagsHelp } from "./options.js";

export function helpText(): string {
  const subcommands = Object.values(SUBCOMMANDS)
    .map((c) => columnRow(`  awl ${c.usage}`, c.summary, 32))
    .join("\n");
  return `${versionText()}: an agent for the terminal whose tools are Lua extensions.

Usage:
  awl [flags] [prompt]           interactive (with a terminal), the prompt as first message
  awl -p [flags] [prompt]        one turn, then exit; piped stdin is added to the prompt
${subcommands}

${flagsHelp()}

Environment:
  AWL_PROVIDER, AWL_MODEL, AWL_BASE_URL, AWL_API_KEY (else OPENAI_API_KEY / ANTHROPIC_API_KEY)
  config files: $XDG_CONFIG_HOME/awl/config.json (default ~/.config/awl/config.json), then .awl/config.json here
  precedence: environment < user config file < project config file < flags (docs/config.md)

Interactive: /help lists the slash commands and keys; Esc or Ctrl-C cancels a turn; Alt-Enter adds a line; Ctrl-D exits.
Every subcommand takes --help.
Exit codes: 0 ok, 1 provider error, 2 usage or config, 3 tool crash, 4 max steps, 130 cancelled.
Reference: docs/cli.md
`;
}
