import type { Rule } from '../rule.js';

/**
 * Round 24: the surface of tools an agent runs beside its model call (a browser fetch refused by CORS, an
 * editor's package or extension marketplace and its update checks, a language server's pipe), whose network
 * words look transient but are never a provider failing a prompt; and, for contrast, a tool's own model call
 * whose failure is the provider's. Each rule reads the shape of a failure, not one vendor's sentence; each has
 * fixtures (ids r24-…, r24neg-…) in `catalogue/fixtures/generic.jsonl`.
 */

/** A model call in the same text (an endpoint of a provider API) makes a tool's words the model call's again. */
const modelEndpoint =
  /\/v1\/(?:messages|chat\/completions|completions|responses)\b|\/chat\/completions\b|:(?:stream)?generatecontent\b|\/backend-api\/codex\/responses|\bfailed to generate content with model\b/;

export const toolSurfaceRules: readonly Rule[] = [
  {
    id: 'local.cors_blocked.v1',
    description:
      "A browser refused a cross-origin request (CORS): the page, tool or server the agent fetched does not allow the caller, which no retry changes; never a model provider's transient failure",
    tier: 'signature',
    // Below local.tool_subject.v1 (33), whose subject words are more exact; above every network and provider rule, whose `fetch failed` these texts carry.
    priority: 32,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['cors', 'cross'],
      text: /\bblock(?:s|ed)? cross-origin requests?\b|\bcross-origin requests? (?:are |were )?(?:blocked|refused|not allowed)\b|\bblocked by cors policy\b|\bcors (?:policy|error|request did not succeed)\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.editor_marketplace.v1',
    description:
      "An editor's package or extension marketplace, or an app's update check, could not be reached (package information, extension query or download, update check): the tool's own catalogue, not a model call",
    tier: 'signature',
    priority: 32,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['package', 'marketplace', 'extensions', 'extension', 'update', 'updates'],
      text: /\brequest for package information failed\b|\b(?:could not|cannot|can't|unable to) connect to the extension marketplace\b|\berror while fetching extensions\b|\bmarketplace\.visualstudio\.com\/_apis\/public\/gallery\b|\bopen-vsx\.org\/api\b|\bupdate check failed\b|\bfailed to check for updates\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.language_client.v1',
    description:
      "An editor's language client lost its language server (a language-client connection error, a connection to the server erroring or disposed, a language support server that could not start): a local process, not a model call",
    tier: 'signature',
    priority: 32,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['language', 'connection', 'pending'],
      text: /\blanguage-client(?:-client)?\b[^\n]{0,40}\bconnection error\b|\bconnection to server is erroring\b|\bconnection to server got closed\b|\bpending response rejected since connection got disposed\b|\blanguage support for [^\n]{1,60}\bcouldn't create connection to server\b|\blanguage server (?:crashed|exited)\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.mcp_sse_transport.v1',
    description:
      "An MCP client's SSE transport got a non-200 answer (`SSE error: Non-200 status code (503)`): the MCP server or its gateway failed, not the model call",
    tier: 'signature',
    priority: 32,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['sse'],
      text: /\bsse error: non-200 status code\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.github_client.v1',
    description:
      "GitHub's API client (Octokit, in Ruby or JavaScript) failed with a status: the git host's API the agent or its tooling calls, not a model provider",
    tier: 'signature',
    priority: 32,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['octokit'],
      text: /@octokit\/|\boctokit::/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.search_tool_status.v1',
    description:
      "A web search tool's own request failed with a throttle or server status (`Web search error: 429`, `search tool failed: 503`): the search backend's limit, not the model's",
    tier: 'signature',
    priority: 32,
    code: 'side_channel',
    confidence: 'medium',
    when: {
      keywords: ['search'],
      text: /\bweb[ _-]?search(?: tool)? (?:error|failed)\b[^\n]{0,40}\b(?:429|50[0234])\b|\bsearch tool (?:error|failed)\b[^\n]{0,40}\b(?:429|50[0234])\b/,
      // A search grounded by the model itself (Gemini's web search tool) fails with the model call's status.
      unless:
        /\/v1\/(?:messages|chat\/completions|completions|responses)\b|generatecontent\b|\bwith model\b|\bgemini\b/,
    },
  },
  {
    id: 'local.installer_retry.v1',
    description:
      "A package installer's own retry line (`npm warn retry will retry, error on last attempt: ...`): its registry download, whatever network word follows",
    tier: 'signature',
    priority: 32,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['retry'],
      text: /\bnpm (?:warn|err!|error) retry will retry, error on last attempt\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'provider.tool_model_call_5xx.v1',
    description:
      "A tool's own model call failed with a server error (`Failed to generate content with model M: got status: 500`): the tool (a web fetch, a summarizer) is only where the provider's failure surfaced",
    tier: 'signature',
    // Above local.tool_subject.v1 (33), which would give the tool's name the failure.
    priority: 35,
    code: 'provider_unavailable',
    confidence: 'medium',
    when: {
      keywords: ['generate'],
      text: /\bfailed to generate content with model [\w.:/-]{1,80}: got status: 50[0234]\b/,
    },
  },
];
