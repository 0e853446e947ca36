/** A plugin source that cannot be fetched; the message says which and why. */
export class PluginSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PluginSourceError";
  }
}
