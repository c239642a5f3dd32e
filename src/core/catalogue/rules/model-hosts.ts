/**
 * Where a model is served, for `local.foreign_host.v1` (safety audit 2): the hosts of model provider APIs and of
 * the gateways and relays that front them, the paths a model API takes its prompts at on any host (a custom base
 * URL, a company gateway), and the loopback ports local model servers listen on. A failure whose target is none of
 * these is a tool's; one that names any of them anywhere in its text stays the provider's.
 *
 * Each entry is a regular-expression source over lower-cased text; keep them linear (bounded gaps, no nested
 * repetition).
 */
export const modelApiHosts: readonly string[] = [
  // OpenAI, Azure OpenAI, ChatGPT's Codex backend
  String.raw`\bopenai\.com\b`,
  String.raw`\.openai\.azure\.com\b`,
  String.raw`\bchatgpt\.com\b`,
  // Anthropic and Claude
  String.raw`\banthropic\.com\b`,
  String.raw`\bclaude\.(?:ai|com)\b`,
  // Google's model APIs (Gemini API, Vertex AI, Code Assist), not Google's other services
  String.raw`\bgenerativelanguage\.googleapis\.com\b`,
  String.raw`\b(?:[a-z0-9-]{1,40}-)?aiplatform\.googleapis\.com\b`,
  String.raw`\b(?:[a-z0-9-]{1,20}-)?cloudcode-pa\.googleapis\.com\b`,
  // Bard, Gemini's predecessor, called at its web host by unofficial clients
  String.raw`\bbard\.google\.com\b`,
  String.raw`\bcloudaicompanion\.googleapis\.com\b`,
  // Google's sign-in and project look-ups that Gemini CLI makes before its first prompt (broad: a Terraform run's
  // look-ups too; kept, the development corpus has Gemini CLI's own)
  String.raw`\b(?:oauth2|cloudresourcemanager|serviceusage)\.googleapis\.com\b`,
  // Amazon Bedrock and SageMaker runtimes, Amazon Q
  String.raw`\bbedrock(?:-runtime|-agent-runtime)?[.-][a-z0-9.-]{0,40}amazonaws\.com\b`,
  String.raw`\bruntime\.sagemaker\.[a-z0-9-]{1,30}\.amazonaws\.com\b`,
  String.raw`\bq\.[a-z0-9-]{1,30}\.amazonaws\.com\b`,
  String.raw`\bcom\.amazon\.bedrock\b`,
  // model APIs by company
  String.raw`\bopenrouter\.ai\b`,
  String.raw`\bdeepseek\.com\b`,
  String.raw`\bmistral\.ai\b`,
  String.raw`\bapi\.x\.ai\b`,
  String.raw`\bgroq\.com\b`,
  String.raw`\btogether\.(?:xyz|ai)\b`,
  String.raw`\bdashscope[a-z0-9-]{0,20}\.aliyuncs\.com\b`,
  String.raw`\bbigmodel\.cn\b`,
  String.raw`\bapi\.z\.ai\b`,
  String.raw`\bmoonshot\.(?:cn|ai)\b`,
  String.raw`\bkimi\.com\b`,
  String.raw`\bfireworks\.ai\b`,
  String.raw`\bcohere\.(?:com|ai)\b`,
  String.raw`\bperplexity\.ai\b`,
  String.raw`\bcerebras\.ai\b`,
  String.raw`\bsambanova\.ai\b`,
  String.raw`\bnovita\.ai\b`,
  String.raw`\bsiliconflow\.(?:cn|com)\b`,
  String.raw`\bminimaxi?\.(?:chat|com|io)\b`,
  String.raw`\bvolces\.com\b`,
  String.raw`\bstepfun\.com\b`,
  String.raw`\bhunyuan\.[a-z0-9.]{1,30}\b`,
  String.raw`\b(?:qianfan|aip)\.baidubce\.com\b`,
  String.raw`\blingyiwanwu\.com\b`,
  String.raw`\bapi\.nvidia\.com\b`,
  // NVIDIA's model catalogue, where its API keys are issued ("Get a key at https://build.nvidia.com/settings/api-keys")
  String.raw`\bbuild\.nvidia\.com\b`,
  String.raw`\bgithubcopilot\.com\b`,
  String.raw`\bcopilot-proxy\.githubusercontent\.com\b`,
  String.raw`\bcursor\.sh\b`,
  String.raw`\bfeatherless\.ai\b`,
  String.raw`\bhyperbolic\.xyz\b`,
  String.raw`\bdeepinfra\.com\b`,
  String.raw`\breplicate\.com\b`,
  String.raw`\b(?:api-inference|router)\.huggingface\.co\b`,
  String.raw`\bvoyageai\.com\b`,
  String.raw`\bapi\.writer\.com\b`,
  String.raw`\bqwen\.ai\b`,
  String.raw`\bscaleway\.ai\b`,
  String.raw`\bapi\.inference\.wandb\.ai\b`,
  String.raw`\bai21\.com\b`,
  String.raw`\biflow\.cn\b`,
  String.raw`\bgrok\.com\b`,
  String.raw`\bollama\.(?:com|ai)\b`,
  String.raw`\b(?:services\.ai|models\.ai|inference\.ai|cognitiveservices)\.azure\.com\b`,
  String.raw`\bmodels\.github\.ai\b`,
  String.raw`\b(?:runpod|chutes|upstage|reka|lambda|kluster|302|inceptionlabs)\.ai\b`,
  String.raw`\b(?:baseten\.co|modal\.run|inference\.net|bytepluses\.com)\b`,
  String.raw`\bnebius\.(?:ai|com)\b`,
  // coding agents' own model backends
  String.raw`\b(?:ampcode\.com|factory\.ai|warp\.dev|codeium\.com|windsurf\.com|augmentcode\.com|opencode\.ai|kilocode\.ai|cline\.bot|roocode\.com|continue\.dev|tabnine\.com|letta\.com)\b`,
  // hostile review of safety audit 2 (finding 5): Azure AI resources, Firebase's Vertex AI, Code Assist's daily
  // sandbox, Amazon's CodeWhisperer (Kiro, Amazon Q), Hugging Face inference endpoints, coding agents' backends
  String.raw`\b[a-z0-9-]{1,64}\.(?:cognitiveservices|services\.ai)\.azure\.com\b`,
  String.raw`\bfirebasevertexai\.googleapis\.com\b`,
  String.raw`\b(?:[a-z0-9-]{1,20}-)?cloudcode-pa\.sandbox\.googleapis\.com\b`,
  String.raw`\bcodewhisperer\.[a-z0-9-]{1,30}\.amazonaws\.com\b`,
  String.raw`\.endpoints\.huggingface\.cloud\b`,
  String.raw`\b(?:cursor\.com|cloud\.zed\.dev|api\.jetbrains\.ai)\b`,
  // inference providers and relays
  String.raw`\b(?:api\.endpoints\.anyscale\.com|api\.llama\.com|api\.friendli\.ai|api\.poe\.com|api\.venice\.ai|api\.aimlapi\.com|api\.aleph-alpha\.com|api\.lambdalabs\.com|lepton\.run|api\.unify\.ai|glama\.ai|requesty\.ai|oai\.hconeai\.com)\b`,
  String.raw`\b(?:baichuan-ai\.com|xf-yun\.com|lkeap\.cloud\.tencent\.com|sensenova\.cn|ppinfra\.com|qnaigc\.com|xiaomimimo\.com|ohmygpt\.com|chatanywhere\.tech)\b`,
  // Cloudflare Workers AI and AI Gateway
  String.raw`\bgateway\.ai\.cloudflare\.com\b`,
  String.raw`\/client\/v4\/accounts\/[^\s/]{1,64}\/ai\/`,
  // gateways and relays that serve models under their own host
  String.raw`\bportkey\.ai\b`,
  String.raw`\bhelicone\.ai\b`,
  String.raw`\baihubmix\.com\b`,
  String.raw`\bllmgateway\.io\b`,
  // a host whose own name says it serves models (llm-gw.corp, ai-proxy.corp, my-litellm.internal, host='vllm-server',
  // attempted address: inference.acme.io): the word stands alone in its label or between hyphens
  String.raw`(?:\/\/|@|\b(?:enotfound|eai_again|lookup|host|hostname|address|unknownhostexception|to)[:=]? ?['"]?)[a-z0-9.-]{0,60}(?<![a-z0-9])(?:llm|litellm|ollama|vllm|tgi|openai|anthropic|claude|gemini|genai|copilot|gpt|inference|ai-?gateway|ai-?proxy|llm-?(?:proxy|gw|gateway|router|api|server)|model-?(?:api|gw|gateway|proxy|server))(?![a-z0-9])`,
];

/** Paths a model API takes prompts, embeddings or model listings at, on whatever host serves it. */
export const modelApiPaths: readonly string[] = [
  // (not a messaging API's own /v1/messages: Vonage, formerly Nexmo)
  String.raw`(?<!\bapi\.(?:nexmo|vonage)\.com)\/v\d{1,2}(?:beta\d?|alpha\d?)?\/(?:chat\/completions|completions|messages|responses|embeddings|models)\b`,
  String.raw`\/chat\/completions\b`,
  String.raw`\/openai\/deployments\/`,
  String.raw`:(?:stream)?generatecontent\b`,
  String.raw`:(?:stream)?(?:raw)?predict\b`,
  String.raw`\/model\/[^\s/]{1,120}\/(?:invoke|converse)`,
  String.raw`\/api\/(?:chat|generate|embed|embeddings|tags|show|ps)\b`,
  String.raw`\/backend-api\/codex\/`,
  String.raw`\/anthropic\/v1\/`,
  String.raw`\/inference\/v1\/`,
  // a relay's prompt path at its root (`https://relay.example/responses`, `/api/openai/responses`), not after a
  // resource's id (a mail folder's /messages, a form's /responses), a hosted chat stream
  String.raw`\/\/[^\s\/"']{1,120}(?:\/(?:api|openai|codex|anthropic|claude|proxy|relay)){0,3}\/(?:responses|messages)(?=$|[\s"'),;?])`,
  String.raw`\/stream_?chat\b`,
  // a text-generation server's own prompt paths (TGI, vLLM's legacy API), a managed endpoint's invocation, a
  // serverless GPU's synchronous run
  String.raw`\/generate(?:_stream)?(?=$|[\s"'),;?])`,
  String.raw`\/invocations\b`,
  // Sourcegraph's completions (Cody), watsonx's text generation, Snowflake Cortex, a bare /completions on an
  // editor's cloud
  String.raw`\/\.api\/completions\b`,
  String.raw`\/ml\/v\d\/text\/(?:chat|generation)\b`,
  String.raw`\/cortex\/inference:complete\b`,
  String.raw`\/runsync\b`,
];

/**
 * Loopback ports only local model servers take: Ollama 11434, LM Studio 1234, KoboldCpp 5001, Jan 1337, SGLang 30000.
 * The dev-server ports that llama.cpp (8080), vLLM (8000), text-generation-webui (5000), LiteLLM (4000) and LocalAI
 * (8001, 8081) also use count only with a model path (hostile review of safety audit 2: a web app's /graphql on
 * localhost:8000 is the user's own server).
 */
export const localModelPorts: readonly number[] = [11434, 1234, 5001, 1337, 30000];

/**
 * A model provider's host, a model API's path or a local model server's port anywhere in the text (for
 * `local.foreign_host.v1` and its kin), or in the target a failed request names (`notTheModelCall`, prose.ts).
 */
export const modelTarget = new RegExp(
  [
    ...modelApiHosts,
    ...modelApiPaths,
    String.raw`(?:localhost|127\.0\.0\.1|0\.0\.0\.0|::1|host\.docker\.internal)['"]?\]?(?::|,?\s{0,2}port[=: ]\s{0,2})(?:${localModelPorts.join('|')})\b`,
    // a base URL that ends at its API version (`https://gw.corp/v1`): an OpenAI-compatible model API's root
    String.raw`\bhttps?:\/\/[^\s"']{1,200}\/v1\/?(?=$|[\s"'),;])`,
    // an agent's own server on loopback (a session, thread or run path): it relays the model's failure
    String.raw`\b(?:localhost|127\.0\.0\.1)(?::\d{1,5})?\/(?:sessions?|threads?|runs?|events?|prompts?|messages?|agents?|conversations?|acp|rpc)\b`,
    // a proxy on the way out: every request of the agent, its model calls first, passes it (also a host named as
    // one: proxy.corp, squid, zscaler, the proxy port 3128)
    String.raw`\btunneling socket\b|\bproxy ?(?:connect|error|authentication|tunnel)|\bproxyerror\b|\b407 proxy\b|\bhttps?_proxy\b`,
    String.raw`(?:\/\/|[\s'"=@(])(?:web-?|corp-?|egress-?|outbound-?)?proxy[a-z0-9-]{0,20}\.|\b(?:squid|zscaler)\b|[:=] ?3128\b|\bport 3128\b`,
    // Ollama's port on any host (a GPU box on the LAN): no tool of its own listens there
    String.raw`[:=]\s{0,2}11434\b`,
    // a model provider's or model's word in a URL's path (`/api/claude`, `/openai/v1/chat`, `/codex/responses`)
    String.raw`\bhttps?:\/\/[^\s"'\/]{1,120}\/(?:[^\s"'\/]{1,60}\/){0,4}(?:claude|anthropic|openai|gemini|genai|copilot|codex|llm)s?(?=[\/\s"'?)]|$)`,
    // the failure says whose account or backend failed upstream (`upstream claude account unavailable`)
    String.raw`\bupstream (?:claude|anthropic|openai|gemini|gpt|llm|model)\b`,
  ].join('|'),
  'm',
);
