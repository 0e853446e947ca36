/**
 * Hot reload of skills, prompt commands and sub-agent definitions in the interactive mode, in a real terminal
 * (tmux) against the local replay server (docs/skills.md, "Hot reload"): saved while awl runs, a new skill,
 * command and agent are offered at the next request; an edited skill body and command are what the next
 * invocation sends; a save that breaks them is reported and the previous version keeps working.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { tmuxTest } from "./tmux-terminal.js";
import { openaiAnswer } from "./openai-answer.js";

const tty = tmuxTest();

function save(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

async function turn(prompt: string, answer: string): Promise<string> {
  tty.server.enqueue(openaiAnswer(answer));
  await tty.send(prompt);
  await tty.terminal.waitFor(new RegExp(`${answer}\\n(.*\\n)*>`));
  return JSON.stringify(tty.server.requests[tty.server.requests.length - 1]!.json());
}

const skill = (body: string): string => `---\nname: fresh-skill\ndescription: FRESH-DESCRIPTION of a skill saved while awl runs.\n---\n${body}\n`;

describe("hot reload of skills, prompt commands and agents", () => {
  it("a save is offered at the next request; an edit is what the next invocation sends; a broken save keeps the last good one", { timeout: 120_000 }, async () => {
    const home = await tty.start({ extensions: { "x.lua": 'awl.register_tool("x", { type = "object" }, function() return "" end)' }, columns: 200 });
    const config = join(home, ".config", "awl");
    const first = await turn("first", "Answer one.");
    expect(first).not.toContain("FRESH-DESCRIPTION");

    save(join(config, "skills", "fresh-skill", "SKILL.md"), skill("SKILL-BODY-V1"));
    save(join(config, "commands", "greet.md"), "---\ndescription: Greets.\n---\nSay GREET-V1 to $ARGUMENTS\n");
    save(join(config, "agents", "helper.md"), "---\nname: helper\ndescription: HELPER-AGENT for small jobs.\n---\nYou help.\n");
    await tty.terminal.waitFor(/skills: \+fresh-skill/);
    await tty.terminal.waitFor(/commands: \+\/greet/);
    await tty.terminal.waitFor(/agents: \+helper/);
    const second = await turn("second", "Answer two.");
    expect(second).toContain("FRESH-DESCRIPTION");
    expect(second).toContain("HELPER-AGENT");
    expect(second).not.toContain("SKILL-BODY-V1"); // progressive disclosure still holds

    save(join(config, "skills", "fresh-skill", "SKILL.md"), skill("SKILL-BODY-V2"));
    await tty.terminal.waitFor(/skill fresh-skill reloaded/);
    expect(await turn("/fresh-skill now", "Answer three.")).toContain("SKILL-BODY-V2");
    save(join(config, "commands", "greet.md"), "---\ndescription: Greets.\n---\nSay GREET-V2 to $ARGUMENTS\n");
    await tty.terminal.waitFor(/command \/greet reloaded/);
    expect(await turn("/greet Bob", "Answer four.")).toContain("Say GREET-V2 to Bob");

    // Broken saves: said, and the last good versions keep working.
    save(join(config, "skills", "fresh-skill", "SKILL.md"), "---\nname: [fresh-skill\n---\nSKILL-BODY-BROKEN\n");
    await tty.terminal.waitFor(/skill fresh-skill not reloaded:[\s\S]*its previous\s+version is kept/);
    const kept = await turn("/fresh-skill again", "Answer five.");
    expect(kept).toContain("SKILL-BODY-V2");
    expect(kept).not.toContain("SKILL-BODY-BROKEN");
    expect(kept).toContain("FRESH-DESCRIPTION");
    save(join(config, "commands", "greet.md"), "---\ndescription: [Greets\n---\nSay GREET-BROKEN to $ARGUMENTS\n");
    await tty.terminal.waitFor(/command \/greet not reloaded:[\s\S]*its previous\s+version is kept/);
    const greeted = await turn("/greet Al", "Answer six.");
    expect(greeted).toContain("Say GREET-V2 to Al");
  });
});
