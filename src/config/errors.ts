/** Configuration problems are values: what is wrong (naming the variable, flag or file) and what to do. */
export interface ConfigError {
  message: string;
  /** What the user can do about it, e.g. "set AWL_MODEL or pass --model NAME". */
  hint: string;
}

export type ConfigResult<T> = { ok: true; value: T } | { ok: false; error: ConfigError };
