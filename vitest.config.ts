import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests spawn the built binary and worker threads; two cores in CI.
    pool: "forks",
    maxWorkers: 2,
    // Each test file gets a temp folder of its own, removed (and checked) when it finishes (docs/testing.md).
    globalSetup: ["test/support/temp-root.ts"],
    setupFiles: ["test/support/temp-check.ts"],
  },
});
