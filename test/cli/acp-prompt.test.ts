// ACP prompt blocks as awl's user message.
import { expect, it } from "vitest";
import { promptContent } from "../../src/acp/prompt-content.js";
import { PNG_1X1 } from "../support/images.js";

it("takes text, images, embedded context and resource links; refuses audio, bad images and empty prompts, naming the block", () => {
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
  expect(promptContent([{ type: "text", text: "look" }, { type: "image", data: PNG_1X1, mimeType: "image/png" }])).toEqual({
    ok: true,
    content: [{ type: "text", text: "look" }, { type: "image", media_type: "image/png", data: PNG_1X1 }],
  });
  expect(promptContent([{ type: "text", text: "look" }, { type: "image", data: "AAAA", mimeType: "image/png" }])).toEqual({
    ok: false,
    message: "prompt block 1 (image) says image/png, but its data is not a PNG image",
  });
  expect(promptContent([{ type: "audio", data: "AAAA", mimeType: "audio/wav" }])).toEqual({
    ok: false,
    message: "prompt block 0 is audio: awl takes text, image, resource and resource_link blocks",
  });
  expect(promptContent([{ type: "text", text: "  " }])).toEqual({ ok: false, message: "the prompt is empty" });
});
