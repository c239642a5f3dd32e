/**
 * Round 31: the credentials, permissions, rate limits and quotas of the tools around an agent, refused or spent by
 * their own services (a code host's or a workspace platform's API, a search or reader service, an MCP server over
 * HTTP, an editor's MCP connection, a cloud directory's sign-in, a marketplace), in the words a model provider uses
 * for the same failures. Each shape names whose account answered; the shared vetoes in `prose.ts`
 * (`notTheModelCall`, `notTheProviderAccount`) include them, so neither the transient nor the hard readings take such
 * a text for the agent's model call. Fixtures: ids r31-…, r31neg-… in `catalogue/fixtures/generic.jsonl`.
 */

/**
 * Services an agent's tools call that are no model provider, as they name their own API ("GitHub API error: 401",
 * "Authentication failed for Jira API (403)", "You've hit the rate limit on the Reader API", "Search API error").
 */
export const toolPlatforms = String.raw`github|gitlab|bitbucket|jira|confluence|atlassian|slack|notion|linear|figma|sentry|supabase|vercel|netlify|stripe|search|serper|serpapi|tavily|brave|jina|firecrawl|exa|reader|context7`;

/**
 * "<platform> API", "<platform> REST API", "<platform> GraphQL API": the platform's own API answered, unless a model
 * or inference is named after it on the line (GitHub's model inference is a model call).
 */
const platformApi = String.raw`\b(?:${toolPlatforms})(?: rest| graphql)? api\b(?![^\n]{0,200}\b(?:models?|inference)\b)`;

/**
 * A platform's client library or exception named as the failing caller (`@notionhq/client warn: request fail`,
 * `gitlab.exceptions.GitlabAuthenticationError`, `GithubException`, `SlackApiError`). Octokit is left out: it also
 * calls GitHub's model inference endpoint.
 */
const platformClient = String.raw`@notionhq\/client|\bnotion_client\b|\bpygithub\b|\bgitlab\.exceptions\b|\bgitlab[a-z]{0,20}error\b|\bgithubexception\b|\bslack_sdk\b|@slack\/web-api\b|\bslackapierror\b|\bjiraerror\b`;

/**
 * Slack's Web API shape (`{"ok":false,"error":"invalid_auth"}`) and its auth codes (`invalid_auth`, `not_authed`): no
 * model provider answers with them.
 */
const slackShape = String.raw`\{\s{0,3}"ok"\s{0,3}:\s{0,3}false\s{0,3},\s{0,3}"error"\s{0,3}:|\binvalid_auth\b|\bnot_authed\b`;

/**
 * An HTTP status whose body is a JSON-RPC envelope (`HTTP 401 {"jsonrpc":"2.0","id":null,"error":{...}}`): an MCP
 * server over HTTP. An agent protocol's JSON-RPC runs over the agent's standard streams, not behind an HTTP status.
 */
const jsonRpcOverHttp = String.raw`\b[45]\d\d\s{0,3}\{\s{0,3}"jsonrpc"\s{0,3}:`;

/**
 * An editor's MCP connection log (`Connection state: Error 401 status sending message to ...`): the server the editor
 * connects to answered, not a model.
 */
const editorMcpConnection = String.raw`\bconnection state: error\b|\berror \d{3} status sending message to\b`;

/**
 * What names a model API after a directory's sign-in code: Azure OpenAI's and AI Foundry's hosts, a deployment's or
 * a completion's path, or a model. Kept short: the full `modelTarget` in a lookahead would slow every shared veto.
 */
const modelApi = String.raw`openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com|\/deployments\/|\/chat\/completions|\bmodels?\b`;

/**
 * A cloud directory's sign-in code (`AADSTS700082: The refresh token has expired due to inactivity`, from `az`, an
 * editor extension or a deploy tool) when the text names no model API: the tool's own login, no model call.
 */
const directorySignIn = String.raw`\baadsts\d{5,7}\b(?![\s\S]{0,4000}?(?:${modelApi}))`;

/**
 * A throttle keyed on an identity namespace (`Request was blocked due to exceeding usage of resource 'Concurrency' in
 * namespace 'VSID'`, a marketplace's publish or download): a model provider keys its limits on an organization, a
 * model or tokens.
 */
const namespaceThrottle = String.raw`\bexceeding usage of resource '[^'\n]{1,40}' in namespace '`;

/**
 * A look-up of the account's usage (`Get usage info failed: 401`) and a fetch of a page's content (`Error fetching
 * content: 402`): a meter and a reader, neither of them the model call.
 */
const usageOrContentFetch = String.raw`\b(?:get|fetch|load|read|refresh)(?:ing)? (?:the )?(?:account |plan |credit )?usage(?: info(?:rmation)?| data| stats| limits?)? failed\b|\b(?:error|failed) (?:while )?fetch(?:ing)? (?:the )?(?:page |web |url |site )?content\b`;

/** An agent platform's own identity token (`Agent token did not verify`): the platform's credential, not a model's. */
const agentToken = String.raw`\bagent[_ ]tokens?\b`;

/**
 * A server that spells out its own authentication scheme with a placeholder (`Provide it via the Authorization
 * header: Bearer <token>`): a service documenting how to call it, not a provider refusing the agent's key.
 */
export const serverAuthInstructions = /\bauthorization header:? ?["'`]?bearer <[a-z_ -]{1,30}>/;

/** The shapes above as one alternation, for the shared vetoes. */
export const toolAccountWords = [
  platformApi,
  platformClient,
  slackShape,
  jsonRpcOverHttp,
  editorMcpConnection,
  directorySignIn,
  namespaceThrottle,
  usageOrContentFetch,
  agentToken,
  serverAuthInstructions.source,
].join('|');
