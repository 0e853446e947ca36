// parseFrontMatter: the YAML block of SKILL.md, prompt commands and agent definitions, with file:line on every fault.
import { describe, expect, it } from "vitest";
import { FrontMatterError, parseFrontMatter } from "../../src/util/front-matter.js";

/** The error parseFrontMatter throws for `text`. */
function fault(text: string): FrontMatterError {
  try {
    parseFrontMatter(text, "skills/x/SKILL.md");
  } catch (error) {
    if (error instanceof FrontMatterError) return error;
    throw error;
  }
  throw new Error("no error thrown");
}

describe("parseFrontMatter", () => {
  it("splits the keys from the body and says where the body starts", () => {
    const parsed = parseFrontMatter("---\nname: pdf\ndescription: Reads PDFs.\nmetadata:\n  author: me\n---\n# Body\nline\n", "f.md");
    expect(parsed.data).toEqual({ name: "pdf", description: "Reads PDFs.", metadata: { author: "me" } });
    expect(parsed.body).toBe("# Body\nline\n");
    expect(parsed.bodyLine).toBe(7);
  });

  it("reads CRLF files and a byte order mark", () => {
    const parsed = parseFrontMatter("\uFEFF---\r\nname: a\r\n---\r\nbody\r\n", "f.md");
    expect(parsed.data).toEqual({ name: "a" });
    expect(parsed.body).toBe("body\r\n");
    expect(parsed.bodyLine).toBe(4);
  });

  it("takes a file without a first `---` line as all body", () => {
    expect(parseFrontMatter("# Title\n---\nx: 1\n", "f.md")).toEqual({ data: {}, body: "# Title\n---\nx: 1\n", bodyLine: 1 });
    expect(parseFrontMatter("", "f.md")).toEqual({ data: {}, body: "", bodyLine: 1 });
  });

  it("takes an empty block as no keys, and a closing fence at the end of the file as an empty body", () => {
    expect(parseFrontMatter("---\n---\nhi", "f.md")).toEqual({ data: {}, body: "hi", bodyLine: 3 });
    expect(parseFrontMatter("---\na: 1\n---", "f.md")).toEqual({ data: { a: 1 }, body: "", bodyLine: 4 });
  });

  it("names the file and the line of the YAML that does not parse", () => {
    const error = fault("---\nname: x\ndescription: Use when: the user asks\n---\nbody\n");
    expect(error.message).toMatch(/^skills\/x\/SKILL\.md:3: front matter is not valid YAML: Nested mappings/);
    expect(error.line).toBe(3);
    expect(fault("---\nname: x\nname: y\n---\n").message).toMatch(/^skills\/x\/SKILL\.md:3: .*unique/);
  });

  it("refuses a block never closed, and YAML that is not keys and values", () => {
    expect(fault("---\nname: x\nbody without an end\n").message).toBe(
      "skills/x/SKILL.md:1: the front matter that starts here is never closed by a line `---`",
    );
    expect(fault("---\n- a\n- b\n---\n").message).toMatch(/^skills\/x\/SKILL\.md:2: front matter must be YAML keys and values/);
    expect(fault("---\njust text\n---\n").message).toMatch(/:2: front matter must be YAML keys/);
  });
});
