/** What fetching a plugin source gives (fetch-source.ts, fetch-rock.ts). */
import type { SourceKind } from "./store.js";

/** What a source gave: the package root inside the staging folder. */
export interface FetchedSource {
  root: string;
  kind: SourceKind;
  /** The source as it will be recorded (paths made absolute). */
  source: string;
  /** The commit (git) or the version (npm). */
  resolved?: string;
}
