/** Images in a user's prompt are checked before they join the conversation: what is wrong is said, nothing is sent. */
import { describe, expect, it } from "vitest";
import { MAX_PROMPT_IMAGE_BYTES, promptImage } from "../../src/model/images.js";
import { PNG_1X1 } from "../support/images.js";

describe("promptImage", () => {
  it("takes a PNG, JPEG, GIF or WebP whose bytes are what its type says", () => {
    expect(promptImage("image/png", PNG_1X1)).toEqual({ ok: true, image: { type: "image", media_type: "image/png", data: PNG_1X1 } });
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]).toString("base64");
    expect(promptImage("image/jpeg", jpeg).ok).toBe(true);
    expect(promptImage("image/gif", Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00").toString("base64")).ok).toBe(true);
    expect(promptImage("image/webp", Buffer.from("RIFF\x1a\x00\x00\x00WEBPVP8L").toString("base64")).ok).toBe(true);
  });

  it("names what is wrong: the type, the encoding, bytes of another type, the size", () => {
    expect(promptImage("image/bmp", PNG_1X1)).toEqual({ ok: false, message: 'has media type "image/bmp"; awl sends image/png, image/jpeg, image/gif, image/webp' });
    expect(promptImage(undefined, PNG_1X1)).toMatchObject({ ok: false, message: expect.stringContaining("has media type null") });
    expect(promptImage("image/png", "")).toEqual({ ok: false, message: "needs its data as a base64 string" });
    expect(promptImage("image/png", "iVBORw0K\nGgo=")).toMatchObject({ ok: false, message: expect.stringContaining("not base64") });
    expect(promptImage("image/jpeg", PNG_1X1)).toEqual({ ok: false, message: "says image/jpeg, but its data is not a JPEG image" });
    const huge = "A".repeat(Math.ceil((MAX_PROMPT_IMAGE_BYTES + 3) / 3) * 4);
    expect(promptImage("image/png", huge)).toMatchObject({ ok: false, message: expect.stringContaining("awl sends images up to 20 MB") });
  });
});
