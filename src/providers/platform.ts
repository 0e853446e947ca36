/**
 * A cloud platform that serves a vendor's wire API at its own address with its own sign-in (Vertex AI serves
 * Anthropic Messages and Gemini): the vendor's request builder and assembler run unchanged; only the URL and the
 * headers that authenticate differ.
 */
import { isProviderError, type ProviderError } from "./errors.js";
import type { WireRequest } from "./stream-driver.js";

export interface WirePlatform {
  /** The provider's name in sessions and messages, e.g. `google-vertex-anthropic`. */
  name: string;
  /** Names the endpoint in messages (e.g. `Vertex AI (project P, region R)`). */
  describe: string;
  /**
   * The stream endpoint of the configured model and the headers that authenticate one request (a token fetched
   * again when it expires), or why there are none.
   */
  authorize(): Promise<{ url: string; headers: Record<string, string> } | ProviderError>;
  /** Names the platform in an HTTP error's message (a 403 names the project and what it lacks). */
  explainHttpError?(error: ProviderError): ProviderError;
}

/** `request` sent to the platform: its URL, its authentication added to the headers. */
export async function onPlatform(platform: WirePlatform, request: WireRequest | ProviderError): Promise<WireRequest | ProviderError> {
  if (isProviderError(request)) return request;
  const auth = await platform.authorize();
  return isProviderError(auth) ? auth : { url: auth.url, headers: { ...request.headers, ...auth.headers }, body: request.body };
}
