// Text a host serves whole (an ACP client's buffer) is cut into lines as the disk reader cuts a file.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { readText, textOfBytes } from "../../../src/extensions/lua/worker/host-text.js";
import { tempDir } from "../../support/temp-dir.js";

it("gives the same text and figures as reading the file, whole and by lines", () => {
  const dir = tempDir("awl-text-");
  for (const text of ["", "one\n", "one\ntwo\nthree\n", "one\ntwo\nno newline at the end", "\n\n\n"]) {
    const file = join(dir, "f.txt");
    writeFileSync(file, text);
    for (const options of [{}, { offset: 1, limit: 1 }, { offset: 2 }, { offset: 2, limit: 2 }, { offset: 3, limit: 10 }, { offset: 9 }, { limit: 2 }]) {
      const [diskText, diskInfo] = readText(file, options);
      const [hostText, hostInfo] = textOfBytes(Buffer.from(text), options);
      expect(Buffer.from(hostText as Uint8Array).toString(), `${JSON.stringify(text)} ${JSON.stringify(options)}`).toBe(Buffer.from(diskText as Uint8Array).toString());
      expect(hostInfo).toEqual(diskInfo);
    }
  }
});
