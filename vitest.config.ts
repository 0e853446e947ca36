import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests spawn the built binary and worker threads; two cores in CI.
    pool: "forks",
    maxWorkers: 2,
  },
});
