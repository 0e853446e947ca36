/** `awl update [NAME[@REF]] [--yes]`: src/cli/commands/install.ts. */
export { runUpdate as run } from "./install.js";
