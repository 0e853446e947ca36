/**
 * `awl acp [flags]`: awl as an Agent Client Protocol agent on stdio, for editors (docs/acp.md). Takes the main
 * command's model, limit, extension and session flags; runs until the client closes stdin, then cancels what
 * still runs, saves the sessions and exits 0.
 */
import { formatUserMessage } from "../error-text.js";
import { EXIT } from "../exit-codes.js";
import { parseCliArgs, settingsFlags } from "../options.js";

export async function run(argv: readonly string[]): Promise<number> {
  const parsed = parseCliArgs(argv);
  if (!parsed.ok) {
    process.stderr.write(formatUserMessage(parsed.error));
    return EXIT.usage;
  }
  const cli = parsed.value;
  if (cli.flags.help) {
    process.stdout.write("Usage: awl acp [flags]\n\nServes the Agent Client Protocol on stdin/stdout (docs/acp.md); takes the flags of `awl` (awl --help).\n");
    return EXIT.ok;
  }
  if (cli.prompt !== "") {
    process.stderr.write(formatUserMessage({ message: `awl acp takes no prompt (got "${cli.prompt}")`, hint: "the client sends prompts over the protocol" }));
    return EXIT.usage;
  }
  const [{ loadSettings }, { AcpAgent }, { stdioStream }] = await Promise.all([import("../../config/index.js"), import("../acp/agent.js"), import("../acp/stdio.js")]);
  const warn = (text: string): void => void process.stderr.write(`awl: ${text}\n`);
  const loaded = await loadSettings(process.env, settingsFlags(cli.flags));
  if (!loaded.ok) warn(`${loaded.error.message} (every session/new is refused with this message)`);
  for (const warning of (loaded.ok && loaded.value.config.warnings) || []) warn(warning);

  const acp = new AcpAgent({ cli, loaded, warn });
  const connection = acp.connect(stdioStream());
  await connection.closed;
  await acp.shutdown();
  return EXIT.ok;
}
