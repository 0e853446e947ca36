/**
 * `awl acp [flags]`: awl as an Agent Client Protocol agent on stdio, for editors (docs/acp.md). Takes the main
 * command's model, limit, extension and session flags; runs until the client closes stdin, then cancels what
 * still runs, saves the sessions and exits 0.
 */
import { resolve } from "node:path";
import { formatUserMessage } from "../../ui/error-text.js";
import { refreshCompileCachesAtExit } from "../compile-cache.js";
import { EXIT } from "../exit-codes.js";
import { parseCliArgs } from "../options.js";

export async function run(argv: readonly string[]): Promise<number> {
  const parsed = parseCliArgs(argv);
  if (!parsed.ok) {
    process.stderr.write(formatUserMessage(parsed.error));
    return EXIT.usage;
  }
  const parsedCli = parsed.value;
  // Sessions work in folders of their own: folders named on the command line are taken from where awl started.
  const dirs = parsedCli.flags["extensions-dir"];
  const cli = dirs ? { ...parsedCli, flags: { ...parsedCli.flags, "extensions-dir": dirs.map((dir) => resolve(dir)) } } : parsedCli;
  if (cli.flags.help) {
    process.stdout.write("Usage: awl acp [flags]\n\nServes the Agent Client Protocol on stdin/stdout (docs/acp.md); takes the flags of `awl` (awl --help).\n");
    return EXIT.ok;
  }
  if (cli.prompt !== "") {
    process.stderr.write(formatUserMessage({ message: `awl acp takes no prompt (got "${cli.prompt}")`, hint: "the client sends prompts over the protocol" }));
    return EXIT.usage;
  }
  refreshCompileCachesAtExit(); // a long run: its chunks' caches may hold more at exit
  const [{ AcpAgent }, { stdioStream }] = await Promise.all([import("../../acp/agent.js"), import("../../acp/stdio.js")]);
  const warn = (text: string): void => void process.stderr.write(`awl: ${text}\n`);
  // Each session reads the configuration of its own folder (a problem is that session/new's error).
  const acp = new AcpAgent({ cli, warn });
  const connection = acp.connect(stdioStream());
  await connection.closed;
  await acp.shutdown();
  return EXIT.ok;
}
