// ACP prompt blocks as awl's user message.
import { expect, it } from "vitest";
import { promptContent } from "../../src/cli/acp/prompt-content.js";

it("takes text, embedded context and resource links; refuses images and empty prompts, naming the block", () => {
  expect(
    promptContent([
      { type: "text", text: "Explain" },
      { type: "resource", resource: { uri: "file:///p/a.ts", text: "const a = 1;" } },
      { type: "resource_link", uri: "file:///p/b.ts", name: "b.ts" },
    ]),
  ).toEqual({
    ok: true,
    content: [
      { type: "text", text: "Explain" },
      { type: "text", text: '<context uri="file:///p/a.ts">\nconst a = 1;\n</context>' },
      { type: "text", text: "@file:///p/b.ts" },
    ],
  });
  expect(promptContent([{ type: "text", text: "look" }, { type: "image", data: "AAAA", mimeType: "image/png" }])).toEqual({
    ok: false,
    message: "prompt block 1 is image: awl takes text, resource and resource_link blocks",
  });
  expect(promptContent([{ type: "text", text: "  " }])).toEqual({ ok: false, message: "the prompt is empty" });
});
