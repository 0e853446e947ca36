// `@path` completion follows every .gitignore as git does: the repository root's, each folder's own below it,
// `.git/info/exclude`, `!` re-including; outside a repository, the working directory's down.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { completeFileMention } from "../../src/runtime/file-mentions.js";
import { tempDir } from "../support/temp-dir.js";

function tree(files: Record<string, string>): string {
  const root = tempDir("awl-mention-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("@path completion", () => {
  it("leaves out what a nested .gitignore, the root's and .git/info/exclude ignore, from a subfolder too", () => {
    const root = tree({
      ".git/info/exclude": "secret.txt\n",
      ".gitignore": "*.log\n",
      "app/.gitignore": "build/\ngenerated.ts\n!keep.log\n",
      "app/main.ts": "",
      "app/generated.ts": "",
      "app/build/out.js": "",
      "app/debug.log": "",
      "app/keep.log": "",
      "app/secret.txt": "",
      "app/lib/util.ts": "",
      "app/lib/generated.ts": "",
    });
    expect(completeFileMention("see @app/", root)).toEqual(["see @app/keep.log ", "see @app/lib/", "see @app/main.ts "]);
    // A deeper folder: app/.gitignore's "generated.ts" (no slash) applies at any depth below it.
    expect(completeFileMention("@app/lib/", root)).toEqual(["@app/lib/util.ts "]);
    // Started in a subfolder of the repository: the root's rules still apply.
    expect(completeFileMention("@", join(root, "app"))).toEqual(["@keep.log ", "@lib/", "@main.ts "]);
  });

  it("outside a repository reads the working directory's .gitignore and those below it", () => {
    const root = tree({ ".gitignore": "tmp/\n", "docs/.gitignore": "draft.md\n", "docs/guide.md": "", "docs/draft.md": "", "tmp/x": "" });
    expect(completeFileMention("@", root)).toEqual(["@docs/"]);
    expect(completeFileMention("@docs/", root)).toEqual(["@docs/guide.md "]);
  });
});
