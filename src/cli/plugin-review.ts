/**
 * The question `awl install` and `awl update` ask after showing what a plugin brings (docs/plugins.md,
 * "Review"). On a terminal it is asked there; without one the answer is the first line of standard input (end of
 * input is no), so a script passes `--yes` or pipes its answer. Only `y` or `yes` says yes.
 */
import { createInterface } from "node:readline";

/** Asks `question`; true only for y/yes. */
export async function askYesNo(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdin.isTTY ? process.stdout : undefined, terminal: process.stdin.isTTY === true });
  try {
    if (!process.stdin.isTTY) process.stdout.write(question);
    const answer = await new Promise<string | undefined>((done) => {
      rl.once("close", () => done(undefined));
      if (process.stdin.isTTY) rl.question(question, done);
      else rl.once("line", done);
    });
    if (!process.stdin.isTTY) process.stdout.write("\n");
    return answer !== undefined && /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}
