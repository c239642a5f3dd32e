import { localModelPorts, modelTarget } from './model-hosts.js';
import { toolAccountWords, toolPlatforms } from './tool-accounts.js';

/**
 * Task and commit prose that names a failure without being one ("fix: retry on ECONNRESET", "Handle the socket
 * hang up case", "the task mentioned ..."): the broad patterns below never match it.
 */
/**
 * Text that begins with the cause of an error (`cause: Error: socket hang up ...`, `[cause]: ...`): the error it
 * caused, and so what was being done (a provider call or anything else), is not in the evidence, unless the cause
 * names the model API it was a request to (`cause: FetchError: request to https://api.openai.com/v1/chat/completions
 * failed, reason: connect ETIMEDOUT`) within its first line.
 */
export const causeOnly = new RegExp(
  String.raw`^\s{0,8}\[?cause\]?:(?![^\n]{0,300}?(?:${modelTarget.source}))`,
);

/**
 * A response that arrived but did not parse (a JSON error, a bad chunk, a stream event of a kind the client does not
 * know): the connection did its job, so this is not a network or transport failure, whatever library wrapped it. A
 * JSON decoder's own words under a server-error type ("Upstream error: Unterminated string starting at: line 1
 * column 138") say a body did not parse, not that the server failed: it could be the request or the upstream.
 */
/**
 * A relay on this machine that answers a 5xx with only "Unknown error" for the URL it was asked (`unexpected status 502
 * Bad Gateway: Unknown error, url: http://127.0.0.1:3456/v1/responses`): the local process says it failed, not what
 * failed behind it. The provider-down rules stand down; a relay that names the upstream's answer keeps its reading.
 */
export const loopbackUnknownError =
  /\bunknown error,? url: https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\])[:/]/;

/**
 * A JVM network exception whose stack names only the JDK's own frames (`java.net.SocketTimeoutException: Connect timed
 * out` then `at java.base/sun.nio.ch.NioSocketImpl…` and nothing else, round 29): no client library, host, URL or
 * caller is named, so nothing says a model call timed out; the network rules leave it unclassified. A frame of any
 * other package (OkHttp, an SDK, the application) names the caller, and the rules read it again.
 */
export const jdkOnlyStack =
  /^\s{0,8}(?:caused by: )?java\.(?:net|io)\.[a-z]{1,40}exception: [^\n]{1,120}(?:\n[ \t]{0,8}at (?:java\.base\/)?(?:java|javax|sun|jdk)\.[^\n]{1,200}){1,40}\s{0,8}$/;

/**
 * A Connect-RPC client's error carries the RPC status in brackets (`ConnectError: [unavailable] Error`,
 * `[unauthenticated]`, `[resource_exhausted]`): the word ConnectError names the protocol, not a connection that
 * could not be made, so the connection rules do not read it. The bracketed code says less than a connection failure.
 */
export const connectRpcError = /\bconnecterror: \[[a-z_]{3,30}\] error\b/;

/**
 * LiteLLM's `APIConnectionError` is its catch-all for exceptions it did not map: with only a provider's exception
 * name and a detail that names no connection, socket, timeout, DNS or TLS failure, the class name alone is no
 * network failure (round 25: `litellm.APIConnectionError: GeminiException - some error message`).
 */
export const litellmCatchAll =
  /\blitellm\.apiconnectionerror: [a-z][\w]{1,40}exception - (?![^\n]{0,160}(?:connect|network|socket|refused|reset|timed? ?out|timeout|dns|resolve|unreachable|ssl|tls|eof|disconnect|closed|chunk|stream))/;

export const malformedResponse =
  /error parsing chunk|expecting property name enclosed|expected value at line \d{1,6} column|unterminated string starting at:? line \d{1,6} column|not valid json|invalid json|json parse error|exception - '[a-z_]{1,20}'\s*$|failed to parse (?:the )?(?:[a-z]{1,20} )?stream(?:ing)? (?:event|chunk)|unknown variant .{1,40}, expected one of/m;

/**
 * A JSON decoder's own words (Python's json module: "Unterminated string starting at: line 1 column 138", "Expecting
 * property name enclosed", "Expecting value: line 1 column 1") on the line of a server-error type: the body that did not
 * parse could be the request's fault or the upstream's, so no provider failure is read from it. A client that could
 * not parse a plain-text "Service Unavailable" ("is not valid JSON") still reports the provider's answer.
 */
/**
 * An HTML page where the client wanted JSON ("Unexpected token '<', \"<!doctype\"... is not valid JSON"): a response
 * nobody read, whose page it is goes unsaid (round 15's malformed response, round 46), whatever status or catch-all
 * type the client wrapped it in.
 */
export const unreadHtmlResponse = /\bunexpected token '<',[^\n]{0,60}\bis not valid json\b/;

export const decoderUnderServerError =
  /\bserver_error\b[^\n]{0,200}(?:unterminated string starting at:? line \d{1,6} column|expecting property name enclosed|expect(?:ed|ing) value:? (?:at )?line \d{1,6} column)/;

export const proseCue =
  /^\s*(?:fix|fixes|feat|chore|docs?|refactor|tests?|handle|document|make sure|ensure|add|implement|support|investigate|todo|note|consider|explain|describe|why does)\b|\bthe task (?:mentioned|says|said|asks)|\bmentioned\b/;

/**
 * A notice that lists a failure among possible reasons ("possible reasons for this are that you have received
 * multiple consecutive capacity errors or you have reached your daily quota limit"): it says it does not know
 * which one happened, so no rule for one of those reasons may read it as that failure. So does a message that names
 * three kinds of limit joined by "or" ("quota, credits, or rate limit was exhausted"): a tool that could not tell
 * which limit its provider answered; two kinds joined the same way before a verb ("rate or quota limit reached")
 * hedge too. A documentation row that names a second cause ("this error also occurs when
 * ..."), a row that lists an invalid argument and an incorrect key as alternatives, and an explanation that a status
 * "is not caused by" one limit "but most probably by" another are hedges of the same kind.
 */
export const hedgedCause =
  /possible reasons? (?:for this )?(?:are|is|include|could be)\b|\b(?:quota|credits?|rate[- ]limits?|usage limits?|balance),? (?:or )?(?:quota|credits?|rate[- ]limits?|usage limits?|balance),? or (?:quota|credits?|rate[- ]limits?|usage limits?|balance)\b|\bthis error (?:also|can also|may also) occurs? (?:when|if)\b|\binvalid (?:argument|param(?:eter)?)\b[^\n]{0,200}\b(?:an? )?(?:incorrect|invalid) api key is (?:supplied|provided)\b|\b(?:is|was) not caused by\b[^\n]{0,80}\bbut (?:most )?(?:probably|likely)\b|\b(?:rate|quota) or (?:rate|quota) limits? (?:reached|exceeded|hit)\b/;

/**
 * A failed action whose object is no model call (catalogue 2026.12.06-4, from the unsafe answers rounds 7 to 17 drew
 * on development text before their rules): a token got, requested or refreshed (a sign-in, by the issue-10
 * decision), prices, a version or an update check, an extension, plugin, package, image or manifest, session
 * metadata, a web page's resource, a file written or read, documents or sources retrieved, an index, a licence or
 * telemetry; and a search ("Error searching with ..."), which a tool runs, not a prompt. The transport, throttle and
 * server-error words after it are that action's, whoever answered it, so no rule reads them as a transient provider
 * failure: an automatic retry of it would be a guess. The object is read by its noun, not by any tool's name, so a
 * tool no rule names is covered too.
 */
function failedActionOn(objects: string) {
  return String.raw`\b(?:(?:failed to|unable to|could not|couldn.t|cannot|can.t|error:?|failure:?) (?:while )?(?:get|getting|fetch|fetching|request|requesting|load|loading|download|downloading|install|installing|refresh|refreshing|retrieve|retrieving|pull|pulling|push|pushing|upload|uploading|check|checking|update|updating|write|writing|read|reading)|failed (?:getting|fetching|requesting|loading|downloading|installing|refreshing|retrieving|pulling|pushing|uploading|checking|updating|writing|reading)) (?:the |an? |your |our |local )?(?:[a-z0-9_.-]{1,30} ){0,2}(?:${objects})\b|\b(?:failed|error|failure|unable to|could not) (?:while )?search(?:ing)?\b`;
}
const nonModelObjects = String.raw`pricing|prices?|versions?|updates?|extensions?|plugins?|packages?|images?|manifests?|metadata|resources?|files?|documents?|sources?|index|licen[cs]e|telemetry|agents`;
const nonModelAction = new RegExp(failedActionOn(String.raw`tokens?|${nonModelObjects}`));
/**
 * The same without a token as the object: a token got or refreshed is a sign-in, no model call (so no transient
 * reading), but a refresh refused is the provider account's credential refused (`auth_required` keeps it).
 */
const nonModelActionButToken = new RegExp(failedActionOn(nonModelObjects));

/**
 * A throttle the client puts on itself (`LocalRateLimitError`, "the local rate-limit queue", a "client-side rate
 * limit"), and a spending cap an agent's run set for itself in money (`Budget exceeded: $10.00 limit reached`, round
 * 36; a gateway's budget names its user, key or model instead): no provider answered.
 */
const clientOwnLimiter =
  /\blocal ?rate[- ]?limit|\blocalratelimit|\bclient[- ]side (?:rate[- ]?limit|throttl)|\bbudget exceeded:?\s{0,2}\$\d[\d,.]{0,12}\s{0,2}limit reached\b/;

/**
 * A package manager's or build tool's own line (`npm ERR!`, `npm ERR:`, `npm error`, `gyp ERR!`, `yarn error`, `pnpm ERR`,
 * cargo's "warning: spurious network error"): an installer's network, not a model call's.
 */
const installerLine =
  /(?:^|\n)[ \t]{0,8}(?:npm (?:err[!:]|error)|gyp err!|yarn (?:err!|error)|pnpm err!?|err_pnpm_|warning: spurious network error)/;

/**
 * What a failed connection was to, when that is named and is no model call (catalogue 2026.12.06-12, from the rule
 * exposure measure, docs/classification.md "Exposure"): "Failed to connect to Qdrant", "Error connecting to MCP
 * server", "connect to host localhost:6379". The object is read against the words a model call's connection names (an
 * API, a server, host, proxy or endpoint, a provider, model or agent, a URL or a dotted host name), so a tool no rule
 * names is covered too; an address on this machine or the LAN is a local service unless it is a local model server's
 * port. "Failed to fetch releases" is the same: a fetched resource that is no model, response or completion.
 */
const connectionWord = String.raw`(?:(?:the|a|an|your|our|hosts?|localhost)\b|apis?|servers?|services?|endpoints?|upstream|origin|backend|prox(?:y|ies)|websockets?|internet|network|remote|models?|llms?|inference|providers?|ai\b|chat|cloud|gateway|relay|openai\b|anthropic|claude|gemini|google|vertex|bedrock|azure|aws\b|amazon|openrouter|ollama|lm ?studio|llama|vllm|litellm|deepseek|qwen|kimi|moonshot|mistral|groq|xai\b|grok|copilot|cursor|codex|windsurf|codeium|kiro|perplexity|cohere|together|fireworks|zhipu|glm|minimax|baidu|doubao|hunyuan|siliconflow|nvidia|hugging ?face|replicate|['"\[]|https?:|[a-z0-9-]{1,60}\.[a-z0-9.-]{0,60}[a-z]{2}\b)`;
/** A name followed by what it is on a model call's way ("Mixtral-8x7b.v2 upstream", "Foo API"): a model's or a provider's. */
const namedUpstream = String.raw`[a-z0-9_.:-]{1,60} (?:upstream|apis?|endpoints?|providers?|models?|llms?)\b`;
const modelServerPort = `(?:${localModelPorts.join('|')})\\b`;
const privateAddress =
  String.raw`(?:localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|0\.0\.0\.0|\[::1\]|10\.\d{1,3}\.\d{1,3}\.\d{1,3}|192\.168\.\d{1,3}\.\d{1,3})(?![.\d])` +
  String.raw`(?![/:]\[?[0-9:]{0,40}\]?:?${modelServerPort})(?! port ${modelServerPort})`;
const foreignConnection =
  String.raw`\bconnect(?:ing|ion)? to (?:the |a |an |your |our )?(?:host )?(?:(?:https?:\/\/)?${privateAddress}|(?!${connectionWord}|${namedUpstream}|https?:)[a-z][a-z0-9_-]{1,40}\b)` +
  String.raw`|\bfailed to fetch (?!(?:the |a |an )?(?:[a-z0-9_-]{1,20} )?(?:models?|responses?|completions?|chat|stream|api|url|https?:|threads?|conversations?|runs?|messages?|assistants?|batch(?:es)?)\b)[a-z]{3,}`;

/**
 * The URL or host a failed request names as its own target (`for url: ...`, `(url: ...)`, node-fetch's "request to
 * ... failed", Go's `Get "..."`, urllib3's `HTTPSConnectionPool(host='...')`) when it is no model API's host or path
 * (`modelTarget` in src/core/catalogue/rules/model-hosts.ts, which also counts a local model server's port, a proxy on
 * the way out and a host named for a model): a download, a registry, a search or a chat platform's API. A link to
 * documentation after `url:` is no target.
 */
const foreignRequestTarget = String.raw`(?:(?<!\b(?:project|repo|repository|homepage|source code) )\burl:? ?['"(]?|\brequest to |\bwhen accessing ['"]?|\b(?:error|failed) fetching ['"]?|\bexecuting "[a-z0-9]{1,60}" on "|\b(?:get|post|put|patch|delete) "?)(?![^\s'"()]{0,300}?(?:${modelTarget.source}))https?:\/\/(?![^\s'"()]{0,200}?\/docs?\b|(?:docs|help|support|status)\.)[a-z0-9]|\bhttps?connectionpool\((?![^)]{0,300}?(?:${modelTarget.source}))host='`;

/**
 * Other services' own words: an AWS call that names an operation which is no model invocation ("when calling the
 * DescribeDBInstances operation", Go's "operation error CloudWatch Logs: DescribeLogStreams,"); a limit keyed on the
 * caller's address, user or installation (GitHub's "API rate limit exceeded for 52.160.111.19", its secondary rate
 * limit) or a registry's pull rate limit; an MCP server or tool and its JSON-RPC errors; an exporter of spans, metrics
 * or events. A model provider keys its limits on an organization, a model or tokens, and is no MCP server. A hosting
 * platform's proxy that could not reach the app's own instance ("could not make HTTP request to instance", round 38).
 */
/**
 * Round 30: a key variable that is a tool's own, by its name. A code host's, chat or workspace platform's, search or
 * scraping service's key (`GITHUB_PERSONAL_ACCESS_TOKEN not set`, `TAVILY_API_KEY environment variable is required`),
 * and a provider's key kept under a tool's own prefix (`NANOBANANA_GEMINI_API_KEY`): the tool that asks for it is
 * what failed, not the agent's model call. A framework's public prefix (`VITE_`, `NEXT_PUBLIC_`) and a provider's or
 * gateway's own prefix (`AZURE_OPENAI_API_KEY`) are no tool.
 */
const toolKeyVariable = String.raw`\b(?:github|gitlab|bitbucket|slack|discord|notion|linear|jira|atlassian|confluence|figma|sentry|tavily|serper|serpapi|brave|exa|firecrawl|jina|context7|smithery|e2b|browserbase|stripe|supabase|vercel)_[a-z_]{0,30}?(?:api_key|token|pat)\b|\b(?!(?:azure|vertex|google|gcp|aws|bedrock|vite|react_app|expo_public|litellm|openrouter|cloudflare|portkey|helicone)_)[a-z][a-z0-9]{2,24}_(?:gemini|google|openai|anthropic|claude|groq|mistral|deepseek|xai|openrouter|dashscope|qwen|moonshot|zhipu)_api_key\b`;

const otherServiceWords = String.raw`\bcould not make http request to instance\b|\bwhen calling the (?!(?:invoke|converse|generate|chat|sendmessage|retrieveandgenerate|startconversation)[a-z0-9]{0,40} operation)[a-z][a-z0-9]{1,60} operation\b(?![^\n]{0,200}\b(?:invokemodel|converse)\w{0,20}\b)|\boperation error (?!(?:bedrock|q|sagemaker)\b)[a-z][a-z0-9 ]{1,40}: [a-z][a-z0-9]{1,60}, |\brate limit exceeded for (?:installation id|user id|<ip|\d{1,3}\.\d{1,3}\.)|\bsecondary rate limit\b|\bpull rate limit\b|\bmcp[ _:-]?(?:error|servers?|tools?|tool_result|update-server|restart-server|http|transport|client|session)\b|\bmodelcontextprotocol\b|\bexception in asgi application\b|\/api\/chat\/completed\b|\bmcperror\b|\[mcp\]|\bstreamable ?http\b|\btool (?:execution|call|invocation) failed\b|\bfailed to export (?:\d{1,9} )?(?:(?:span|metric|trace|log|event)s? )?(?:batch(?:es)?|spans|metrics|traces|logs|events)\b|\bcode e[45]\d\d\b|\bhttps?:\/\/[^\s'\x22]{1,200}\/mcp\b|\bsearch (?:tool|failed|api error)\b|\berror during (?:the |a )?(?:web )?search\b|\bx-ms-ratelimit-remaining-subscription-|\bresourcerequeststhrottled\b|${toolKeyVariable}`;

/**
 * Subjects whose failure is no model call, named by their kind or product: an observability or telemetry client
 * (PostHog, Sentry, LangSmith, Langfuse, OpenTelemetry and its exporters), a database or vector store, an editor's
 * language client or IDE connection, git's own fatal lines, a container registry or daemon, a Google Cloud quota of a
 * service that is no model API (`of service 'cloudkms.googleapis.com'`), a local model runner that crashed or lacks
 * memory (the machine's, not a provider's), a download or an installation (a model call downloads and installs
 * nothing), an agent's own app server (a bridge that could not reach Codex's `app-server` process). Round 42: an app's
 * own backend (a tRPC error), an MCP tool's result (`Tool execution result: ... TextContent(...)`), a file embedded or
 * processed for retrieval, a plugin daemon's own inner error, and an app server's access log line for a path that is
 * no model API (`"POST /ollama/verify HTTP/1.1" 401`: the app answered its own client). An observability client named as a model client's callback (`success callback: langfuse`) is beside the
 * model call, not its subject. By the issue-10 decision each is `not_provider`, whatever network, status or throttle
 * words it carries.
 */
const otherSubjects = String.raw`\bconnect(?:ing)? to (?:the )?(?:remote |local )?app[ -]server\b|\btrpc(?:error|clienterror)?\b|\btool execution result\b|\bduckduckgo\b|\bunable to handle [\w-]{2,40} event\b|\b[a-z]{0,12}(?:asr|stt|tts) models?\b|\berror (?:embedding|processing|uploading|indexing) (?:the )?files?\b|\bplugindaemoninnererror\b|\x22(?:get|post|put|patch|delete) \/(?!(?:api\/)?(?:v\d{1,2}(?:beta)?\/)?(?:chat\/completions|completions|messages|responses|embeddings|models\/[^\s\x22]{1,120}:(?:stream)?generatecontent)\b)[^\s\x22]{1,200} http\/[12](?:\.[01])?\x22 [45]\d\d\b|\bweb[ _-]?search (?:api )?(?:quota|rate[ _-]?limit(?:ed)?|limit)\b|\bfly\.io\b|\brender\.com\b|\bnetlify\b|\brailway\.app\b|(?<!\bcallbacks?[:=]?\s{0,2}\[?['\x22]?)\b(?:posthog\w*|sentry|langsmith\w*|langfuse|clearcut|opentelemetry|otel|otlp|datadog|mixpanel|amplitude|statsig|bugsnag|rollbar)\b|\b(?:metrics|spans|traces|logs|events) export failed\b|\bexportingmetricreader\b|\b(?:vector (?:database|db|store)|qdrant\w*|weaviate\w*|pinecone\w*|redis|mongodb|postgres(?:ql)?|mysql|chromadb|milvus|elasticsearch|opensearch)\b|\blanguage[- ]client\b|\bideclient\b|\bhub[ _]connection\b|\binitiali[sz]e (?:failed|response|request|handshake)\b|\bacp initiali[sz]e\b|\bbefore (?:the )?initiali[sz]e\b|\bspawn failed\b|\bfailed to connect to (?:the )?[\w .-]{1,40} agent\b|\bset[_ ]config[_ ]option\b|\bmcp[a-z]{0,20}(?:exception|error)\b|\bfailed during (?:the |an? )?(?:initial |full |incremental )?(?:scan|indexing|index)\b|\bcode ?(?:base )?index(?:ing|er)?\b|\bide (?:connection|companion)\b|\bfatal: (?:unable to access|the remote end hung up|could not read (?:username|password)|authentication failed for)|\b(?:failed to|unable to|could not|couldn.t) clone\b|\bsandbox(?:es)?\b(?![.-])|\brpc failed;|\bdocker (?:pull|push|daemon|hub)\b|\berror response from daemon\b|\bghcr\.io\b|\bof service '(?![^']{0,80}(?:aiplatform|generativelanguage|cloudaicompanion|cloudcode-pa|firebasevertexai))[a-z0-9.-]{3,80}'|\brunner process has terminated\b|\bmore system memory\b|\b(?:failed to|unable to|could not|couldn.t|cannot|can.t) (?:download|install)\b|\b(?:download|installation|install) failed\b`;

/**
 * A sign-in whose request got no answer ("Failed to login. Message: request to ... failed, reason: self-signed
 * certificate"): its credential words are the login's, and the network failure is the sign-in flow's (issue 10), so no
 * credential was refused.
 */
const signInNetworkFailure = String.raw`\b(?:log ?in|sign[ -]?in|authenticat\w{0,10}|oauth|token exchange)\b[^\n]{0,300}?(?:\bfailed, reason:|\berror sending request\b|\bself-signed certificate\b|\bsocket disconnected\b|\beconnrefused\b|\betimedout\b|\benotfound\b|\bgetaddrinfo\b|\bclient error \(connect\)|\btimeout of \d{3,6}ms exceeded\b)`;

/**
 * Round 29 (tool look-alikes): more objects of a failed action that are no model call, each read by its shape. A
 * list of models fetched by a named part of an app's own UI (`Failed to fetch models in webviewMessageHandler
 * requestRouterModels for deepinfra: Error: read ECONNRESET`): a picker's background refresh, not a turn; a model list
 * the agent loads before its turn (`Error loading model list: fetch failed`, `Failed to fetch models from CAPI`) stays
 * the provider's, and so does a list fetched from a named model host. An update or release check that failed
 * (`Release check failed: 403 rate limit exceeded`, `latest version probe`, `检查更新失败`). A usage meter's endpoint
 * (`Claude CLI usage endpoint is rate limited`, a request for `https://.../usage`, `/billing`, `/credits`): an account
 * look-up. A language server (its download, start or
 * update), Hugging Face Hub's file client (`HfHubHTTPError` with no inference call or endpoint named), a tool call a
 * harness logged as failed (`exec tools fail ... function=browser_navigate`), and a sign-in whose OAuth request timed
 * out or whose authentication failed on the network (`Codex OAuth 认证失败: timeout of 30000ms exceeded`).
 */
const toolLookalikes = String.raw`\bfailed to (?:fetch|get|load|refresh) models in [a-z_.]{3,60}\b(?![^\n]{0,300}?(?:${modelTarget.source}))|\b(?:release|update|version|upgrade) (?:check|probe)s? (?:failed|error)\b|\bcheck(?:ing)? for updates? failed\b|\blatest version probe\b|检查更新失败|\busage (?:endpoint|meter)\b|\bfailed to fetch available models\b|模型列表获取失败|\b(?:for url|url:?|request to) ['\x22(]?https?:\/\/[^\s'\x22()]{1,200}\/(?:usage|billing|credits|subscriptions?)(?=[?\/'\x22()\s]|$)|\bcould not (?:parse|read|fetch|get) (?:the )?(?:[a-z]{1,20} )?usage\b|\blanguage server\b|\bhfhubhttperror\b(?![^\n]{0,300}(?:inference|endpoints\.huggingface\.cloud|chat\/completions|${modelTarget.source}))|\bexec(?:ute|uting)? tools? fail(?:ed|s)?\b|\btoolcall=call_|${signInNetworkFailure}|\boauth\b[^\n]{0,40}认证失败`;

/**
 * OAuth's authorization-code exchange ("Exchanging code for tokens... Token exchange failed (400)"): a step of the
 * sign-in itself, answered before any model call; the login is to be tried again, no provider account refused.
 */
const codeExchange = String.raw`\b(?:token|code) exchange (?:request )?failed\b|\bexchang(?:e|ing) (?:the )?(?:authorization )?code for (?:an? )?(?:access )?tokens?\b`;

/**
 * An agent's own error line anywhere in the text (`API Error: 500 {...}`, `ERROR: ... last status: 429`): the model
 * call failed too, and that line is what ended the run, so the shapes below do not silence the rules that read it. A
 * tool platform's "API error" (`GitHub API error: 401`, `Search API error: Unauthorized`, round 31) is that platform's.
 */
const agentErrorLine = String.raw`[\s\S]{0,16000}?(?:^|\n)[^\n]{0,60}(?:\bapi error\b(?<!\b(?:${toolPlatforms})(?: rest| graphql)? api error)|\b(?:last|unexpected) status:? [45]\d\d\b)`;

/**
 * The shapes above together (a non-model action, a client's own limiter, an installer's line, a foreign connection or
 * request target, another service's words or subject, a tool platform's own account: `tool-accounts.ts`), when no agent's own error line is in the text: the transient
 * readings (network and transport loss, rate limits, a provider down or overloaded, a bare 429 or 5xx) stand down for
 * them and leave the text `unclassified` unless another rule reads it. Anchored at the start, so the text is scanned
 * once, not once per position.
 */
export const notTheModelCall = new RegExp(
  `^(?!${agentErrorLine})[\\s\\S]{0,16000}?(?:${nonModelAction.source}|${clientOwnLimiter.source}|${installerLine.source}|${foreignConnection}|${foreignRequestTarget}|${otherServiceWords}|${otherSubjects}|${toolLookalikes}|${toolAccountWords})`,
);

/**
 * `notTheModelCall` for the hard readings (credentials, quota, plan, a missing key): the same shapes, but a token got or
 * refreshed stays a provider account's (a refused refresh is `auth_required`), and a sign-in that got no answer, an
 * authorization-code exchange and a service's own pricing, dashboard or key page name whose account it is.
 */
export const notTheProviderAccount = new RegExp(
  `^(?!${agentErrorLine})[\\s\\S]{0,16000}?(?:${nonModelActionButToken.source}|${clientOwnLimiter.source}|${installerLine.source}|${foreignConnection}|${foreignRequestTarget}|${otherServiceWords}|${otherSubjects}|${signInNetworkFailure}|${codeExchange}|${toolAccountWords})`,
);

/**
 * A token or key that is no credential: a parser's token (a syntax error anywhere), a page or continuation token, a
 * CSRF token, a licence, SSH or signing key, a cache or database key. "The token is invalid" and "the license key has
 * expired" read like a credential refused, and no sign-in would help either.
 */
export const notACredential =
  /\bsyntax ?error\b|\b(?:unexpected|parse|parser|lexer|page|pagination|continuation|cursor|next|sync|resume|csrf|xsrf|invite|invitation|reset|verification|confirmation|license|licence|ssh|gpg|pgp|host|signing|deploy|cache|primary|foreign|object|json|encryption|idempotency) (?:tokens?|keys?)\b/;
