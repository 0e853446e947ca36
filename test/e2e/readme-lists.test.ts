/** The README's lists stay whole: every document in docs/ is listed, and the Debian packages .ci/run installs. */
import { readdirSync, readFileSync } from "node:fs";
import { expect, it } from "vitest";

const root = new URL("../../", import.meta.url);
const README = readFileSync(new URL("README.md", root), "utf8");

it("lists every document of docs/ under Documentation", () => {
  const listed = README.slice(README.indexOf("## Documentation"), README.indexOf("## Writing an extension"));
  const docs = readdirSync(new URL("docs/", root)).filter((name) => name.endsWith(".md"));
  expect(docs.filter((name) => !listed.includes(`docs/${name}`))).toEqual([]);
});

it("names every Debian package .ci/run installs in its test command's line", () => {
  const ci = readFileSync(new URL(".ci/run", root), "utf8");
  const packages = /for pkg in ([^;]+);/.exec(ci)![1]!.trim().split(/\s+/);
  const line = README.split("\n").find((l) => l.startsWith(".ci/run"))!;
  expect(packages.filter((name) => !line.includes(name))).toEqual([]);
});
