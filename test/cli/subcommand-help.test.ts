import { describe, expect, it } from "vitest";
import { SUBCOMMANDS } from "../../src/cli/commands.js";
import { runAwl } from "./run-awl.js";

// Two runs of the built awl per subcommand, one after another: room for a busy machine.
describe("--help", { timeout: 180_000 }, () => {
  it("every subcommand takes --help (and -h): its usage on stdout, exit 0, nothing run", async () => {
    for (const name of Object.keys(SUBCOMMANDS)) {
      for (const flag of ["--help", "-h"]) {
        const run = await runAwl([name, flag]);
        expect(run.code, `awl ${name} ${flag}: ${run.stderr}`).toBe(0);
        expect(run.stdout, `awl ${name} ${flag}`).toMatch(new RegExp(`^usage: awl ${name}\\b`, "i"));
      }
    }
  });

  it("awl sessions export --help is the sessions usage", async () => {
    const run = await runAwl(["sessions", "export", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("awl sessions export ID [--format md|json]");
  });

  it("awl --help starts every description in one column: after a long usage or flag, on the next line", async () => {
    const lines = (await runAwl(["--help"])).stdout.split("\n");
    // Subcommand rows (`  awl NAME …`) describe at column 33, flag rows (`  -p, --print …`, `      --model …`) at 31.
    const misplaced = lines.flatMap((line, i) => {
      const column = /^  awl /.test(line) ? 33 : /^  (-\w, |    )--/.test(line) ? 31 : undefined;
      if (column === undefined) return [];
      const beside = line.slice(column - 2, column) === "  " && /\S/.test(line[column] ?? "");
      const below = new RegExp(`^ {${column}}\\S`).test(lines[i + 1] ?? "");
      return beside || below ? [] : [line];
    });
    expect(lines.filter((line) => /^  awl permissions/.test(line))).toHaveLength(1);
    expect(misplaced).toEqual([]);
  });

  it("awl --help names the config files and that every subcommand takes --help", async () => {
    const run = await runAwl(["--help"]);
    expect(run.stdout).toContain("then .awl/config.json here");
    expect(run.stdout).toContain("Every subcommand takes --help.");
  });
});
