import { classOfCode } from './codes.js';
import type { Rule } from './rule.js';

/**
 * Words that place a failure in a model call: the call itself (an API, a model, a prompt, a completion, a stream of
 * chunks), a provider's error shape (`"param":`, `/v1/messages`), a provider or model family, an agent product.
 * Read on the lower-cased window. A network error or a bare status from a source that names no provider or agent
 * is a model call's failure only when its text says so: installers, MCP servers, sign-in flows and editor
 * companions fail with the same `ECONNRESET`, `self-signed certificate` and `502`, and retrying one of those
 * automatically is the worst answer there is (issue 10). Measured on the development corpus before the hold-outs.
 */
export const modelCallAnchor = new RegExp(
  [
    // The call and its parts.
    String.raw`\bapi\b|api[ _]error|\bllm|\bmodel|模型|completion|inferenc|\bprompt|embeddings?\b|assistant`,
    String.raw`context (?:length|window)|max_tokens|token|\bchat|\bai\b|agent|provider|upstream|gateway|backend`,
    String.raw`\bstream(?:s|ing|ed)?\b|chunk|finish|overloaded|"param"\s{0,4}:|/v1/messages|generatecontent`,
    // The exception classes and message shape of the model SDKs generated alike (OpenAI's, Anthropic's and others').
    String.raw`\bapi(?:connection|timeout|status)error\b|\bratelimiterror\b|\berror code: [1-5]\d\d - `,
    // Providers, model families and serving layers.
    String.raw`anthropic|openai|claude|gemini|gpt-?\d|\bo[134]\b|bedrock|vertex|ollama|openrouter|deepseek|mistral`,
    String.raw`groq|qwen|dashscope|litellm|\bxai\b|grok|moonshot|kimi|zhipu|glm|cohere|perplexity|fireworks`,
    String.raw`cerebras|sambanova|siliconflow|doubao|ernie|hunyuan|minimax`,
    // Agent products.
    String.raw`codex|copilot|cursor|amazon q|\bcline\b|roo[ -]?code|\baider\b|\bgoose\b|opencode|windsurf|\bkiro\b`,
    String.raw`tabnine|openhands|kilo ?code`,
  ].join('|'),
);

/** Rules whose words a requirement's decision lists exactly: they keep that list, whatever the source. */
const decidedLists: ReadonlySet<string> = new Set([
  // CUR-26: generic transport loss matches the decision's list (peer disconnected, connection closed, ...).
  'transport.stream_lost.v1',
]);

/**
 * The catalogue's transient rules that read broad patterns or a bare status (pattern tier, or `generic`), and are
 * not already limited to named sources nor listed by a decision, answer for evidence from an unnamed source (no provider or agent, or only
 * `generic`) only when its text also names the model call.
 */
export function withModelCallAnchor(rules: readonly Rule[]): Rule[] {
  return rules.map((rule) =>
    (rule.tier === 'pattern' || rule.generic === true) &&
    rule.when.sources === undefined &&
    classOfCode(rule.code) === 'transient' &&
    !decidedLists.has(rule.id)
      ? { ...rule, when: { ...rule.when, anchorWhenUnnamed: modelCallAnchor } }
      : rule,
  );
}
