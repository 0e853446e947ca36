import { describe, expect, it } from "vitest";
import { FrontMatterError, parseFrontMatter } from "../../src/util/front-matter.js";

describe("parseFrontMatter", () => {
  it("splits the YAML mapping from the body and says where the body starts", () => {
    const parsed = parseFrontMatter("---\nname: a\ntools: [read, grep]\n---\nBody line.\n", "a.md");
    expect(parsed).toEqual({ data: { name: "a", tools: ["read", "grep"] }, body: "Body line.\n", bodyLine: 5 });
  });

  it("takes a file without front matter as all body; a BOM and CRLF line ends are read too", () => {
    expect(parseFrontMatter("Just text.", "a.md")).toEqual({ data: {}, body: "Just text.", bodyLine: 1 });
    expect(parseFrontMatter("\uFEFF---\r\nname: a\r\n---\r\nBody", "a.md").data).toEqual({ name: "a" });
    expect(parseFrontMatter("---\n---\nBody", "a.md").data).toEqual({});
  });

  it("names the file and line of front matter that is not YAML, not closed, not a mapping, or has a key twice", () => {
    const error = (text: string): FrontMatterError => {
      try {
        parseFrontMatter(text, "/x/a.md");
      } catch (e) {
        return e as FrontMatterError;
      }
      throw new Error("no error");
    };
    expect(error("---\nname: a\ndescription: [unclosed\n---\n").message).toMatch(/^\/x\/a\.md:3: the front matter is not valid YAML: Flow sequence .* end with a \]$/);
    expect(error("---\nname: a\nbody without end\n").message).toBe('/x/a.md:1: the front matter opened with "---" is never closed by a "---" line');
    expect(error("---\n- a\n- b\n---\n").message).toBe("/x/a.md:2: the front matter should be a YAML mapping (key: value lines)");
    expect(error("---\nname: a\nname: b\n---\n").message).toMatch(/^\/x\/a\.md:3: the front matter is not valid YAML: Map keys must be unique$/);
  });
});
