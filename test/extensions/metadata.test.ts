// Capability metadata is read from the entry point's text, never by running it: plain literals only.
import { describe, expect, it } from "vitest";
import { readMetadata } from "../../src/extensions/metadata.js";

describe("readMetadata", () => {
  it("reads the literal fields of awl.capability, in any string form, and nothing when there is none", () => {
    const source = `-- awl.capability { label = "in a comment" }
local x = "awl.capability { label = 'in a string' }"
awl.capability {
  label = "Weather",
  description = [[Looking up the weather
anywhere by name.]],
  version = '1.0.0'; license = "MIT\\u{2122}",
  homepage = "https://example.com/weather",
}
awl.register_tool { name = "w", run = function() return awl.capability end }
`;
    expect(readMetadata(source)).toEqual({
      ok: true,
      metadata: {
        label: "Weather",
        description: "Looking up the weather\nanywhere by name.",
        version: "1.0.0",
        license: "MIT\u2122",
        homepage: "https://example.com/weather",
      },
    });
    expect(readMetadata("awl.capability({ label = 'x' })")).toEqual({ ok: true, metadata: { label: "x" } });
    expect(readMetadata("awl.register_tool{ name = 'x', run = print }")).toEqual({ ok: true, metadata: undefined });
  });

  it("refuses what only running code could tell, naming the line", () => {
    expect(readMetadata('\nawl.capability {\n  label = get_label(),\n}')).toEqual({
      ok: false,
      line: 3,
      message: "awl.capability: `label` must be a plain string literal, because awl reads it without running your code; found a function call or variable `get_label`",
    });
    expect(readMetadata('awl.capability { label = "a" .. "b" }')).toMatchObject({ ok: false, line: 1, message: expect.stringContaining("found an expression (`..` after the string)") });
    expect(readMetadata("awl.capability { version = 1.5 }")).toMatchObject({ ok: false, message: expect.stringContaining('a number (1.5); write it as a string, e.g. "1.5"') });
    expect(readMetadata("awl.capability { lable = 'x' }")).toMatchObject({ ok: false, message: expect.stringContaining("unknown field `lable`") });
    expect(readMetadata("awl.capability(spec)")).toMatchObject({ ok: false, message: expect.stringContaining("one table written out in place") });
    expect(readMetadata("awl.capability { label = 'x', label = 'y' }")).toMatchObject({ ok: false, message: expect.stringContaining("given twice") });
    expect(readMetadata('awl.capability { label = "unfinished }')).toMatchObject({ ok: false, message: "unfinished string" });
  });
});
