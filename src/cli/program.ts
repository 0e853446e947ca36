/**
 * The `awl` program (loaded by main.ts unless `awl --version` alone was asked): it picks a subcommand (imported
 * only when used) or the main command, and turns anything unexpected into one readable line instead of a stack trace.
 */
import { SUBCOMMANDS } from "./commands.js";
import { writeNotice } from "../ui/output/wrap-text.js";
import { drawFinalState, handleTerminationSignals, terminationExitCode } from "../runtime/termination.js";

function internalError(error: unknown): never {
  drawFinalState();
  const message = error instanceof Error ? error.message : String(error);
  writeNotice(process.stderr, `awl: internal error: ${message}\n  → this is a bug in awl; please report it (AWL_DEBUG=1 shows details)\n`);
  if (process.env.AWL_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  process.exit(1);
}
process.on("uncaughtException", internalError);
process.on("unhandledRejection", internalError);
// A reader that went away (`awl -p ... | head`) is not an error of awl's.
process.stdout.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" ? process.exit(0) : internalError(error)));
handleTerminationSignals();

/** Runs the subcommand or the main command, then exits with its code. */
async function run(argv: readonly string[]): Promise<never> {
  const subcommand = argv[0] !== undefined && Object.hasOwn(SUBCOMMANDS, argv[0]) ? SUBCOMMANDS[argv[0]] : undefined;
  const code = subcommand ? await (await subcommand.load()).run(argv.slice(1)) : await (await import("./chat.js")).runChat(argv);
  // Exit now: pooled sockets or idle workers must not keep a finished command alive.
  // A SIGTERM/SIGHUP being handled decides the code (the command may have ended because of it: "cancelled").
  process.exit(terminationExitCode() ?? code);
}
// No top-level await: the bundle may put this module in a chunk that others import (scripts/bundle-cli.mjs).
run(process.argv.slice(2)).catch(internalError);
