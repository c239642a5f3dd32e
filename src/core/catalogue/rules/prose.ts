/**
 * Task and commit prose that names a failure without being one ("fix: retry on ECONNRESET", "Handle the socket
 * hang up case", "the task mentioned ..."): the broad patterns below never match it.
 */
/**
 * Text that begins with the cause of an error (`cause: Error: socket hang up ...`, `[cause]: ...`): the error it
 * caused, and so what was being done (a provider call or anything else), is not in the evidence.
 */
export const causeOnly = /^\s{0,8}\[?cause\]?:/;

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
const nonModelAction =
  /\b(?:(?:failed to|unable to|could not|couldn.t|cannot|can.t|error:?|failure:?) (?:while )?(?:get|getting|fetch|fetching|request|requesting|load|loading|download|downloading|install|installing|refresh|refreshing|retrieve|retrieving|pull|pulling|push|pushing|upload|uploading|check|checking|update|updating|write|writing|read|reading)|failed (?:getting|fetching|requesting|loading|downloading|installing|refreshing|retrieving|pulling|pushing|uploading|checking|updating|writing|reading)) (?:the |an? |your |our |local )?(?:[a-z0-9_.-]{1,30} ){0,2}(?:tokens?|pricing|prices?|versions?|updates?|extensions?|plugins?|packages?|images?|manifests?|metadata|resources?|files?|documents?|sources?|index|licen[cs]e|telemetry)\b|\b(?:failed|error|failure|unable to|could not) (?:while )?search(?:ing)?\b/;

/**
 * A throttle the client puts on itself (`LocalRateLimitError`, "the local rate-limit queue", a "client-side rate
 * limit"): no provider answered.
 */
const clientOwnLimiter =
  /\blocal ?rate[- ]?limit|\blocalratelimit|\bclient[- ]side (?:rate[- ]?limit|throttl)/;

/**
 * A package manager's or build tool's own line (`npm ERR!`, `npm ERR:`, `npm error`, `gyp ERR!`, `yarn error`, `pnpm ERR`,
 * cargo's "warning: spurious network error"): an installer's network, not a model call's.
 */
const installerLine =
  /(?:^|\n)[ \t]{0,8}(?:npm (?:err[!:]|error)|gyp err!|yarn (?:err!|error)|pnpm err!?|err_pnpm_|warning: spurious network error)/;

/**
 * An agent's own error line anywhere in the text (`API Error: 500 {...}`, `ERROR: ... last status: 429`): the model
 * call failed too, and that line is what ended the run, so the shapes below do not silence the rules that read it.
 */
const agentErrorLine = String.raw`[\s\S]{0,16000}?(?:^|\n)[^\n]{0,60}(?:\bapi error\b|\b(?:last|unexpected) status:? [45]\d\d\b)`;

/**
 * The three shapes above together, when no agent's own error line is in the text: the transient readings (network
 * and transport loss, rate limits, a provider down or overloaded, a bare 429 or 5xx) stand down for them and leave the
 * text `unclassified` unless another rule reads it. Anchored at the start, so the text is scanned once, not once per
 * position.
 */
export const notTheModelCall = new RegExp(
  `^(?!${agentErrorLine})[\\s\\S]{0,16000}?(?:${nonModelAction.source}|${clientOwnLimiter.source}|${installerLine.source})`,
);

/**
 * A token or key that is no credential: a parser's token (a syntax error anywhere), a page or continuation token, a
 * CSRF token, a licence, SSH or signing key, a cache or database key. "The token is invalid" and "the license key has
 * expired" read like a credential refused, and no sign-in would help either.
 */
export const notACredential =
  /\bsyntax ?error\b|\b(?:unexpected|parse|parser|lexer|page|pagination|continuation|cursor|next|sync|resume|csrf|xsrf|invite|invitation|reset|verification|confirmation|license|licence|ssh|gpg|pgp|host|signing|deploy|cache|primary|foreign|object|json|encryption|idempotency) (?:tokens?|keys?)\b/;
