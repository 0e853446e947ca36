/** `awl remove NAME`: src/cli/commands/plugins.ts. */
export { runRemove as run } from "./plugins.js";
