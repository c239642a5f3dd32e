import type { Rule } from '../rule.js';

/**
 * Round 28: streams cut and connections lost as client libraries say it (Go, reqwest and hyper, OkHttp and ktor,
 * gRPC for .NET, the Gemini SDK's stream parser, curl), on a model call and on what an agent runs beside it (a
 * package manager's download, a file download of many megabytes, an MCP server's stream, a site's build, a local
 * model server on loopback); and stated timing in plan and quota words. Each rule reads the shape of a failure, not
 * one vendor's sentence; each has fixtures (ids r28-…, r28pos-…, r28neg-…) in `catalogue/fixtures/generic.jsonl`.
 */

/** A model call in the same text (an endpoint of a provider API) makes a tool's words the model call's again. */
const modelEndpoint =
  /\/v1\/(?:messages|chat\/completions|completions|responses)\b|\/chat\/completions\b|:(?:stream)?generatecontent\b|\/backend-api\/codex\/responses/;

export const clientTransportRules: readonly Rule[] = [
  {
    id: 'local.package_download_cut.v1',
    description:
      "A Python package manager's download or index fetch failed (uv's `Failed to download `pkg==1.2``, `Failed to fetch: `…/simple/…``, `Failed to unzip wheel`, poetry's `Installing pkg (1.2): Failed`): its registry, whatever cut follows",
    tier: 'signature',
    // Above the transport and network rules (pattern tier), whose reset and decode words these texts carry.
    priority: 32,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['download', 'fetch', 'unzip', 'installing', 'distribution'],
      text: /\bfailed to download `[\w.-]{1,80}==[\w.+!-]{1,40}`|\bfailed to fetch: `https?:\/\/[^`\s]{1,200}\/simple\/|\bfailed to unzip wheel\b|\binstalling [\w.-]{1,80} \([\w.+!-]{1,40}\): failed\b|\bfailed to write to the distribution cache\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.large_download_cut.v1',
    description:
      'A body declared at ten megabytes or more was cut (`IncompleteRead(… bytes read, 155538554 more expected)`, `The response ended prematurely, with at least 102479256 additional bytes expected`): a file download (a package, a model file, an installer), not a model answer',
    tier: 'signature',
    priority: 32,
    code: 'side_channel',
    confidence: 'medium',
    when: {
      keywords: ['expected'],
      text: /\b\d{8,12} (?:more|additional)(?: bytes?)? expected\b|\bwith at least \d{8,12} additional bytes expected\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.site_build_fetch.v1',
    description:
      'A site build ended on its own fetch (`Error: Command "npm run build" exited with 1` after a prerender fetch was cut): the project being built, not a model call',
    tier: 'signature',
    priority: 32,
    code: 'task_error',
    confidence: 'medium',
    when: {
      keywords: ['command'],
      text: /\bcommand "(?:npm|pnpm|yarn|bun) run (?:build|generate|export)" exited with \d{1,3}\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.mcp_stream_transport.v1',
    description:
      "An MCP client's stream to its server was cut, in the MCP SDKs' and editors' words (`SSE stream disconnected: TypeError: terminated`, a command client's error, the Java SDK's `HttpClientSseClientTransport`): the tool server's connection, not the model call",
    tier: 'signature',
    priority: 32,
    code: 'side_channel',
    confidence: 'medium',
    when: {
      keywords: ['sse', 'command', 'httpclientsseclienttransport', 'webfluxsseclienttransport'],
      text: /\bsse stream disconnected: |\bclient error for command\b|\b(?:httpclient|webflux)sseclienttransport\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.loopback_model_timeout.v1',
    description:
      'A request to a server on this machine got no answer in time (`Post "http://localhost:11434/v1/chat/completions": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`): the local model server or relay, not a provider',
    tier: 'signature',
    // Above network.connect_timeout.v1 (pattern), which reads the timeout as the network's.
    priority: 30,
    code: 'local_runtime',
    confidence: 'medium',
    when: {
      keywords: ['deadline', 'timeout'],
      text: /\b(?:post|get) "?https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?\/[^"\s]{0,160}"?: (?:context deadline exceeded|net\/http: timeout awaiting response headers)/,
    },
  },
  {
    id: 'network.curl_model_endpoint.v1',
    description:
      'A curl test of a model endpoint failed before any answer (`curl https://…/v1/chat/completions` then `curl: (35) …`, (6), (7), (28), (52), (56)): the way to the model API, not a tool',
    tier: 'signature',
    // Above local.side_channel.v1 (60), which reads a bare `curl: (N)` as an installer's.
    priority: 61,
    code: 'network_unavailable',
    confidence: 'medium',
    when: {
      keywords: ['curl'],
      text: /\bcurl\b[^\n]{0,120}https?:\/\/[^\s"']{1,200}\/(?:v1\/)?(?:chat\/completions|completions|messages|responses)\b[^\n]{0,120}\n(?:[^\n]{0,200}\n){0,3}[^\n]{0,40}\bcurl: \((?:6|7|28|35|52|56)\)/,
    },
  },
  {
    id: 'network.model_response_timeout.v1',
    description:
      'The service says the model did not answer in time (`Model response timeout, please try again later`, `timed out waiting for the model response`): no response came',
    tier: 'pattern',
    code: 'network_unavailable',
    confidence: 'medium',
    when: {
      keywords: ['model', 'timeout', 'timed'],
      text: /\bmodel response (?:timeout|timed out)\b|\btimed out waiting for (?:the )?model(?:'s)? response\b/,
    },
  },
  {
    id: 'transport.client_body_cut.v1',
    description:
      "A response body cut mid-read, in client libraries' own words (Go's `Client.Timeout or context cancellation while reading body`, reqwest's `Decode` of a hyper `Body` error on a reset HTTP/2 stream (a connection reset is transport.connection_lost.v1's), OkHttp and ktor's `chunked transfer encoding, state: READING_LENGTH`, the Gemini SDK's `Incomplete JSON segment at the end`)",
    tier: 'pattern',
    code: 'agent_transport_lost',
    confidence: 'high',
    scope: 'request',
    when: {
      keywords: ['body', 'decode', 'reset', 'chunked', 'segment', 'incompletemessage'],
      text: /\bclient\.timeout or context cancellation while reading body\b|\bhyper::error\((?:body|incompletemessage)\b[^\n]{0,80}\bkind: reset\(streamid\(|\bchunked transfer encoding, state: reading_length\b|\bincomplete json segment at the end\b/,
    },
  },
  {
    id: 'provider.usage_cap_reset_zh.v1',
    description:
      'A usage cap in Chinese that names its reset (`您的限额将在 2026-08-25 07:41:44 重置`, the limit will reset at …), also when a terminal wrapped `已达到 5 小时的使用上限` across lines: a plan window, not a short throttle',
    tier: 'signature',
    // Above provider.rate_limited.v1 (0), which reads the 429 around it as a throttle.
    priority: 11,
    code: 'quota_limited',
    confidence: 'high',
    when: {
      keywords: ['重置', '上限'],
      text: /(?:限额|额度|配额|用量)将(?:在|于)[^\n]{0,40}重置|已达到[^\n]{0,12}\n?[^\n]{0,12}(?:使用|用量)上限/,
    },
  },
  {
    id: 'provider.free_usage_limit_error.v1',
    description:
      'A free tier\'s usage allowance used up, named as an error type (`429 FreeUsageLimitError: "Rate limit exceeded. Please try again later."`): the free allowance, whatever throttle words it carries',
    tier: 'signature',
    priority: 11,
    code: 'quota_limited',
    confidence: 'medium',
    when: {
      keywords: ['freeusagelimiterror', 'freeusagelimitexceeded'],
      text: /\bfreeusagelimit(?:error|exceeded)\b/,
    },
  },
  {
    id: 'provider.retry_info_delay.v1',
    description:
      "Gemini's quota error with its RetryInfo printed as protobuf text (`retry_delay { seconds: 19 }`): a per-minute window that reopens in seconds, though the words say 'exceeded your current quota'; a zero limit or a per-day window stays a quota",
    tier: 'signature',
    // Above provider.quota_exhausted.v1 (10), which reads "exceeded your current quota" as a quota.
    priority: 12,
    code: 'rate_limited',
    confidence: 'medium',
    when: {
      keywords: ['retry_delay'],
      text: /\bretry_delay\s{0,3}\{\s{0,20}seconds:\s{0,3}\d{1,4}\b/,
      unless: /\blimit: 0\b|per ?day|perday/,
    },
  },
];
