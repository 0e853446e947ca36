// V8's young generation is given back at a turn's end once it has grown past 8 MB (issue 30, "No growth";
// src/util/young-generation.ts): V8 doubles it as objects survive its collections and never shrinks it by itself.
import { getHeapSpaceStatistics } from "node:v8";
import { expect, it } from "vitest";
import { shrinkYoungGeneration } from "../../src/util/young-generation.js";

const MB = 2 ** 20;
const youngGeneration = () => getHeapSpaceStatistics().find((space) => space.space_name === "new_space")!.space_size;

/** Allocates as a long session does: many objects, a share of them kept a while (they survive V8's collections). */
function allocate(): void {
  let kept: object[] = [];
  for (let i = 0; i < 1_000_000; i++) {
    kept.push({ i, text: `line ${i}` });
    if (kept.length > 200_000) kept = kept.slice(100_000);
  }
}

it("a turn's end after the young generation grew past 8 MB shrinks it; the process's first turn leaves it", async () => {
  allocate();
  expect(youngGeneration()).toBeGreaterThan(8 * MB);
  shrinkYoungGeneration(); // the first turn's end
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(youngGeneration()).toBeGreaterThan(8 * MB);
  shrinkYoungGeneration();
  await expect.poll(youngGeneration, { timeout: 10_000 }).toBeLessThanOrEqual(8 * MB);
});
