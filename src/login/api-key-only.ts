/** Why `awl login` does not sign in to the other providers: each is used with an API key (docs/providers.md). */

export const API_KEY_ONLY: Readonly<Record<string, string>> = {
  anthropic:
    "Anthropic allows signing in with a Claude subscription (Pro, Max) only in its own apps such as Claude Code; other programs use an API key from console.anthropic.com (ANTHROPIC_API_KEY)",
  openai: "OpenAI's API takes API keys from platform.openai.com (OPENAI_API_KEY); a ChatGPT plan is `awl login chatgpt`",
  "openai-responses": "OpenAI's API takes API keys from platform.openai.com (OPENAI_API_KEY); a ChatGPT plan is `awl login chatgpt`",
  gemini: "Gemini's API takes an API key from Google AI Studio (GEMINI_API_KEY); the Google sign-in of the Gemini CLI is that program's own",
  bedrock: "Amazon Bedrock is used with AWS credentials (the AWS variables) or a Bedrock API key, not a sign-in",
  replay: "the replay provider plays a local script and needs no credentials",
};
