/**
 * awl's addition to the models.dev catalogue (docs/cost.md): model families usually served by llama.cpp, Ollama,
 * vLLM or LM Studio, with the window they were trained for. models.dev lists hosted copies of such models with their
 * host's prices; run on your own machine they cost what your hardware costs, and the server's report of the window
 * it loaded wins over the trained one. So they carry no price, and a family matches a name with any suffix
 * (`qwen2.5-coder-7b-instruct-q4_k_m.gguf`, `llama3.1:8b`).
 */
export interface LocalFamily {
  context_window: number;
  max_output_tokens?: number;
}

export const LOCAL_FAMILIES: Readonly<Record<string, LocalFamily>> = {
  "gpt-oss-120b": { context_window: 131_072, max_output_tokens: 131_072 },
  "gpt-oss-20b": { context_window: 131_072, max_output_tokens: 131_072 },
  "qwen3-coder": { context_window: 262_144 },
  qwen3: { context_window: 40_960 },
  "qwen2.5-coder": { context_window: 32_768 },
  "qwen2.5": { context_window: 32_768 },
  "llama3.1": { context_window: 131_072 },
  "llama3.2": { context_window: 131_072 },
  "llama3.3": { context_window: 131_072 },
  "llama-3.1": { context_window: 131_072 },
  "llama-3.3": { context_window: 131_072 },
  gemma3: { context_window: 131_072 },
  "gemma-3": { context_window: 131_072 },
  devstral: { context_window: 131_072 },
  "mistral-nemo": { context_window: 131_072 },
  "deepseek-r1": { context_window: 131_072 },
  phi4: { context_window: 16_384 },
};
