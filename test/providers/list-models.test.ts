/** `/model`'s list of the server's models, per wire API (Gemini's added by issue 29). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listServerModels } from "../../src/providers/list-models.js";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

const json = { "content-type": "application/json" };

describe("listServerModels", () => {
  it("Gemini: GET /v1beta/models with the key header; only models that can stream, without the models/ prefix", async () => {
    server.enqueue({
      headers: json,
      body: JSON.stringify({
        models: [
          { name: "models/gemini-2.5-pro", supportedGenerationMethods: ["generateContent", "countTokens", "streamGenerateContent"] },
          { name: "models/text-embedding-004", supportedGenerationMethods: ["embedContent"] },
          { name: "models/gemini-2.5-flash", supportedGenerationMethods: ["generateContent", "streamGenerateContent"] },
        ],
      }),
    });
    expect(await listServerModels({ provider: "gemini", baseUrl: server.url, apiKey: "AIza-list" })).toEqual(["gemini-2.5-flash", "gemini-2.5-pro"]);
    expect(server.requests.at(-1)).toMatchObject({ method: "GET", url: "/v1beta/models?pageSize=1000", headers: { "x-goog-api-key": "AIza-list" } });
  });

  it("the Responses provider lists OpenAI's GET /models", async () => {
    server.enqueue({ headers: json, body: '{"object":"list","data":[{"id":"gpt-5-mini"},{"id":"gpt-4.1"}]}' });
    expect(await listServerModels({ provider: "openai-responses", baseUrl: `${server.url}/v1`, apiKey: "sk" })).toEqual(["gpt-4.1", "gpt-5-mini"]);
    expect(server.requests.at(-1)).toMatchObject({ url: "/v1/models", headers: { authorization: "Bearer sk" } });
  });
});
