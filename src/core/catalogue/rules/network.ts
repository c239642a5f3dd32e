import {
  causeOnly,
  connectRpcError,
  jdkOnlyStack,
  litellmCatchAll,
  malformedResponse,
  notTheModelCall,
  proseCue,
} from './prose.js';

/** Prose about a failure, or only the cause of an unseen error: the broad patterns below never match it. */
/** A request line naming a loopback address (`post "https://localhost:8080`, `get http://127.0.0.1:1234`), up to its path. */
const loopbackRequest =
  /(?:get|post|put|patch|delete) "?https?:\/\/(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\]|0\.0\.0\.0)(?::\d{1,5})?(?![\d:])/;
/** The path of a model API call (OpenAI-style, Anthropic, Gemini, Ollama). */
const modelApiPath =
  /\/(?:v\d[\w.]*\/)?(?:messages|chat\/completions|completions|responses|embeddings|models\/[^"\s]{1,80}:(?:stream)?generatecontent)\b|\/api\/(?:chat|generate|embed(?:dings)?)\b/;

// A failed action on something that is no model call (a token, an extension, a package ...) is not one either.
const notAFailureReport = new RegExp(
  `${proseCue.source}|${causeOnly.source}|${malformedResponse.source}|${notTheModelCall.source}|${jdkOnlyStack.source}`,
);

/** CUR-08's vetoes (context cancellation, deadline, cancel escalation) and prose: no transport loss then. */
/**
 * A list of models fetched for a picker or at start-up (`Failed to fetch models from ...`, `Error fetching models:`)
 * that failed its certificate check: a local trust store or proxy to fix, no prompt that failed. A model list that
 * failed otherwise stays the provider's (prose.ts, round 29).
 */
const modelListCertificateFailure = String.raw`\b(?:fail(?:ed|ure)? to (?:fetch|list|load|get)|error (?:fetching|listing|loading)|could not (?:fetch|list|load)|unable to (?:fetch|list|load)) (?:the )?(?:available )?models?(?: list)?\b[^\n]{0,400}?(?:certificate|\bssl(?:error|certverificationerror)?\b)`;

const streamLossVetoes = new RegExp(
  // A stream that names why it ended ("before completion: Proxy request budget exhausted") was ended, not lost.
  // A client that says it will poll again (the job is queued, the stream went quiet) is still waiting, not cut off.
  // A relay that ended the stream because the model called a tool the request never declared refused the call.
  `context (?:canceled|cancelled|deadline exceeded)|cancel escalated|before completion: [^\\n]{0,40}budget exhausted|\\bundeclared (?:client )?tool\\b|\\bonly request-declared tools\\b|\\b(?:polling|poll) again\\b|${notAFailureReport.source}`,
);
import type { Rule } from '../rule.js';

/**
 * Failures before any response (network) and drops after the stream started (transport), in every
 * dialect: Node errno codes, fetch wrappers, TLS, proxies, HTTP/2 resets. Broad patterns: a provider
 * signature in the same text outranks them.
 */
export const networkRules: readonly Rule[] = [
  {
    id: 'network.dns.v1',
    description: 'Host name resolution failed',
    tier: 'pattern',
    code: 'network_unavailable',
    confidence: 'high',
    when: {
      keywords: [
        'enotfound',
        'eai_again',
        'getaddrinfo',
        'resolve',
        'resolution',
        'nodename',
        'host',
        'dns',
        'known',
        'lookup',
      ],
      text: /\benotfound\b|\beai_again\b|getaddrinfo|could not resolve (?:host|hostname|proxy)|temporary failure in name resolution|name or service not known|nodename nor servname|no such host|dns (?:lookup|resolution) (?:failed|error)|failed host lookup/,
      unless: notAFailureReport,
    },
  },
  {
    id: 'network.refused_or_unreachable.v1',
    description: 'Connection refused, network or host unreachable',
    tier: 'pattern',
    code: 'network_unavailable',
    confidence: 'high',
    when: {
      keywords: [
        'econnrefused',
        'refused',
        'enetunreach',
        'ehostunreach',
        'unreachable',
        'route',
        'enetdown',
        'errno',
      ],
      text: /\beconnrefused\b|connection refused|\benetunreach\b|\behostunreach\b|\benetdown\b|network is (?:unreachable|down)|host is unreachable|no route to host|errno 111\b/,
      unless: notAFailureReport,
    },
  },
  {
    id: 'network.connect_timeout.v1',
    description: 'Connecting or waiting for a response timed out',
    tier: 'pattern',
    code: 'network_unavailable',
    confidence: 'high',
    when: {
      keywords: [
        'etimedout',
        'timed',
        'timeout',
        'und_err_connect_timeout',
        'connecttimeouterror',
        'apitimeouterror',
        'esockettimedout',
        'readtimeout',
        'connecttimeout',
        'timeouterror',
        'readtimeouterror',
        'awaiting',
        'err_socket_connection_timeout',
        'err_connection_timed_out',
        'reading',
        'curl',
        'sockettimeoutexception',
        'interruptedioexception',
        'operation',
        'statuscode',
        'connecttimeoutexception',
        '超时',
        'ns_error_net_timeout',
      ],
      text: /\betimedout\b|\besockettimedout\b|und_err_connect_timeout|connecttimeouterror|apitimeouterror|\b(?:read|connect)timeout\b|connect(?:ion)? timed out|\bconnect(?:ion|ing)? to \S{1,200} timed out\b|timed out (?:while |when )?(?:connecting|waiting for (?:a |the )?(?:response|server))|request timed out(?! while processing)|read timed out|read timeout on endpoint|readtimeouterror|timeout awaiting|deadline exceeded while connecting|client\.timeout exceeded|awaiting headers|httpclient\.timeout|i\/o timeout|timeout of \d{1,9}ms exceeded|\brequest timeout after \d{1,9} ?ms\b|err_socket_connection_timeout|socket connection timeout|err_connection_timed_out|timeout on reading data from socket|curl error 28: operation timed out|sockettimeoutexception|interruptedioexception: timeout|the read operation timed out|\bstatuscode\.deadline_exceeded\b|\bconnect timeout has expired\b|连接超时|\bns_error_net_timeout\b|\bconnecttimeoutexception\b|\btimeout period of \d{1,9} ?ms has been exceeded\b/,
      unless: notAFailureReport,
    },
  },
  {
    id: 'network.tls.v1',
    description: 'TLS or certificate failure (corporate proxies, self-signed chains, protocol mismatch)',
    tier: 'pattern',
    priority: 6,
    code: 'network_unavailable',
    confidence: 'high',
    when: {
      keywords: [
        'certificate',
        'self',
        'self_signed_cert_in_chain',
        'depth_zero_self_signed_cert',
        'unable_to_verify_leaf_signature',
        'cert_has_expired',
        'ssl',
        'sslerror',
        'tls',
        'eproto',
        'ssl_error_syscall',
        'sslv3_alert_handshake_failure',
        'handshake',
        'eof',
        'unable_to_get_issuer_cert_locally',
        'pr_end_of_file_error',
        'pr',
      ],
      text: /remote error: tls:|tls: bad record mac|self[- ]signed certificate|self_signed_cert_in_chain|depth_zero_self_signed_cert|unable to verify the first certificate|unable_to_verify_leaf_signature|unable to get (?:local )?issuer certificate|unable_to_get_issuer_cert_locally|certificate (?:has expired|verify failed|is not trusted|signed by unknown authority)|cert_has_expired|(?<!-[a-z]{0,6})ssl(?:error)?[:\] ]|ssl_error_syscall|sslv3_alert|tls (?:handshake|connection)[^\n]{0,30}(?:failed|error|timeout)|\beproto\b|wrong version number|eof occurred in violation of protocol|handshake (?:failed|failure|timed out)|socket disconnected before secure tls connection|\bpr[ _]end[ _]of[ _]file[ _]error\b/,
      // A request to this machine (`Post "https://localhost:31516/messageservice/..."`) whose path is no model API
      // is a local service's certificate, not the way to a provider.
      unless: new RegExp(
        `${notAFailureReport.source}|${loopbackRequest.source}(?!${modelApiPath.source})[^"\\s]{0,200}"?:\\s{0,3}(?:remote error: )?tls|${modelListCertificateFailure}`,
      ),
    },
  },
  {
    id: 'network.fetch_failed.v1',
    description:
      'A fetch or HTTP client gave up before any response (fetch failed, Connection error, unable to connect)',
    tier: 'pattern',
    priority: -10,
    code: 'network_unavailable',
    confidence: 'medium',
    when: {
      keywords: [
        'fetch',
        'networkerror',
        'connection',
        'connect',
        'connecting',
        'apiconnectionerror',
        'connecterror',
        'offline',
        'internet',
        'network',
        'econnaborted',
        'tunneling',
        'proxy',
        'sending',
        'err_connection_refused',
        'err_connection_reset',
        'err_internet_disconnected',
        'firewall',
        '407',
        'tunnel',
      ],
      text: /\bfetch\s{1,12}failed|failed to fetch|networkerror when attempting|network request failed|network error(?! while reading)|connection error|unable to connect|could not connect|cannot connect|can.t connect|failed to connect|apiconnectionerror|\bconnecterror\b|error connecting to|you (?:are|appear to be) offline|no internet connection|check your (?:internet|network) (?:connection|configuration|settings)|\beconnaborted\b|tunneling socket could not be established|proxy (?:error|connection failed|authentication required)|not supported by the http2 proxy|error sending request for url|err_connection_(?:refused|reset|closed)|err_internet_disconnected|check your firewall rules and network connection|status code 407\b|407 proxy authentication required|connect tunnel failed|connection failed: connect error/,
      // "Failed to fetch ... { status: 500 }", "Network Error: ... API error: 400": a response came, so the status decides.
      unless: new RegExp(
        `\\bstatus(?:code)?\\s{0,2}[:=]\\s{0,3}[1-5]\\d\\d|\\bapi error:?\\s{0,3}[1-5]\\d\\d\\b|\\bconnection error: (?:parse|deserializ\\w{0,6}|serializ\\w{0,6}) error\\b|${notAFailureReport.source}|${connectRpcError.source}|${litellmCatchAll.source}|${modelListCertificateFailure}`,
      ),
    },
  },
  {
    id: 'network.connect_reset.v1',
    description: 'The connection was reset while connecting (no response yet)',
    tier: 'signature',
    priority: -10,
    code: 'network_unavailable',
    confidence: 'high',
    when: {
      keywords: ['econnreset', 'connect'],
      // undici's "fetch failed" comes before any response (a cut after the headers is "terminated"), so a reset
      // given as its cause happened while connecting.
      text: /connect econnreset|unable to connect[^\n]{0,40}econnreset|fetch\s{1,12}failed[\s\S]{0,300}?\[cause\]: read econnreset|(?:socket hang up|econnreset)[^\n]{0,40}(?:before|without) (?:a |any )?response/,
      unless: notTheModelCall,
    },
  },
  {
    id: 'network.no_response.v1',
    description:
      'A request that never got a response: connecting to the API failed, or an OAuth or token exchange was cut (no stream had started); an EOF from a loopback server is that local process ending, not the network',
    tier: 'pattern',
    // Above the transport-loss rules (nothing had streamed yet), below the TLS and DNS specifics.
    priority: 5,
    code: 'network_unavailable',
    confidence: 'high',
    when: {
      keywords: [
        'response',
        'connect',
        'oauth',
        'token',
        'login',
        'exchange',
        'sending',
        'network',
        'get',
        'post',
        'eof',
        'headers',
      ],
      // httpx's "Server disconnected without sending a response" and a connection closed before the headers: the
      // server ended the exchange before any byte of a response, so no stream had started.
      text: /\bdisconnected without sending (?:a |any )?response\b|\bconnection closed before (?:the )?(?:response )?headers (?:were )?received\b|\brequest did not get a response\b|error sending request for url|network connection (?:was )?lost|(?:get|post|put) "https?:\/\/(?!(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\]|0\.0\.0\.0)[:/"])[^"\s]{1,200}": eof\b|(?:cannot|can.t|unable to|could not|failed to) connect to (?:the )?api\b|(?:oauth|token exchange|login|sign-in)(?: error| failed)?:?\s[^\n]{0,30}(?:socket connection was closed|connection (?:was )?(?:closed|reset|refused))/,
      unless: notAFailureReport,
    },
  },
  {
    id: 'network.request_failed.v1',
    description:
      'A client library saying the request itself failed ("request to https://... failed, reason: ...", "Error communicating with OpenAI", "Connect timeout on endpoint URL"): no response came',
    tier: 'signature',
    // Above "failed to login" and similar words around it: the words say what was being done, this says why.
    priority: 1,
    code: 'network_unavailable',
    confidence: 'high',
    when: {
      keywords: ['request', 'communicating', 'connect'],
      text: /request to https?:\/\/[^\s]{1,200} failed(?:,? reason|$)|error communicating with (?:openai|the api|the server)|connect timeout on endpoint url|the proxy tunnel request to proxy \S{1,200} failed with status code '?5\d\d\b/m,
      unless: notAFailureReport,
    },
  },
  {
    id: 'network.gateway_upstream_timeout.v1',
    description:
      'A gateway or server saying the exchange timed out before an answer ("upstream timed out" in nginx\'s and relays\' words, "Timed out reading request body"): the model call got no response, whatever 5xx or 408 carried it',
    tier: 'signature',
    priority: 20,
    code: 'network_unavailable',
    confidence: 'medium',
    when: {
      keywords: ['upstream', 'timed'],
      text: /\bupstream timed out\b|\btimed out reading (?:the )?request body\b|\bupstream (?:provider|server) did not respond before the (?:proxy |gateway )?timeout\b/,
      unless: notAFailureReport,
    },
  },
  {
    id: 'network.stale_connection.v1',
    description:
      'The server closed a reused connection without answering ("Remote end closed connection without response"): any server, and HTTP libraries retry it themselves; too ambiguous to act on',
    tier: 'signature',
    code: 'network_unavailable',
    confidence: 'low',
    when: { keywords: ['remote'], text: /remote end closed connection without response/ },
  },
  {
    id: 'network.connection_reset.v1',
    description:
      "A connection reset (`read ECONNRESET`) with no word of a stream that had started: the request got no answer (one that names its stream, or a connection dropped, is transport.connection_lost.v1's)",
    tier: 'pattern',
    // Below the transport-loss rules: a reset beside their words (`Connection dropped (ECONNRESET)`) is theirs.
    priority: -1,
    code: 'network_unavailable',
    confidence: 'high',
    when: {
      keywords: ['econnreset'],
      text: /\beconnreset\b/,
      unless: new RegExp(
        String.raw`\bstream(?:ing)?\b[^\n]{0,40}\beconnreset\b|\beconnreset\b[^\n]{0,40}\b(?:while|during) (?:streaming|reading)\b|${streamLossVetoes.source}`,
      ),
    },
  },
  {
    id: 'network.socket_hang_up.v1',
    description: 'socket hang up: the server closed before answering',
    tier: 'pattern',
    code: 'network_unavailable',
    confidence: 'medium',
    when: { keywords: ['socket', 'hang'], text: /socket hang up/, unless: notAFailureReport },
  },
  {
    id: 'transport.stream_lost.v1',
    description:
      'Generic transport loss, exactly the decision list (CUR-26): peer disconnected, connection closed, stream disconnected, premature close, socket hang up after a response started, HTTP/2 RST_STREAM or GOAWAY, the bare fetch-layer "terminated" (also as an agent\'s "API Error: terminated"); cancellation vetoes',
    tier: 'pattern',
    code: 'agent_transport_lost',
    confidence: 'high',
    scope: 'request',
    when: {
      keywords: [
        'peer',
        'connection',
        'stream',
        'streaming',
        'premature',
        'prematurely',
        'socket',
        'rst_stream',
        'goaway',
        'terminated',
        'response',
        'reading',
      ],
      text: /peer disconnected|connection closed|stream disconnected|premature(?:ly)? close|(?:streaming|mid-response|after (?:the )?response (?:had )?started)[^\n]{0,40}socket hang up|socket hang up[^\n]{0,40}(?:while|during) (?:streaming|reading)|rst_stream|goaway|(?:^|typeerror: ?|api ?error: ?|(?:request|generation) failed: ?|(?:the |a )?request: ?)terminated\]?\s*$|typeerror: terminated\s{1,3}at fetch\.onaborted\b/m,
      unless: streamLossVetoes,
    },
  },
  {
    id: 'transport.connection_lost.v1',
    description:
      "A connection or stream cut after the request went out, in the words of other clients and libraries (reset by peer, ECONNRESET, chunked or incomplete reads, unexpected EOF, nghttp2, stream ended without a finish reason); never Cursor's diagnostic text, which its own rule reads (CUR-26)",
    tier: 'pattern',
    code: 'agent_transport_lost',
    confidence: 'high',
    scope: 'request',
    when: {
      keywords: [
        'peer',
        'connection',
        'stream',
        'err_stream_premature_close',
        'nghttp2',
        'econnreset',
        'reset',
        'chunked',
        'incomplete',
        'closed',
        'socket',
        'und_err_socket',
        'remoteprotocolerror',
        'chunkedencodingerror',
        'incompleteread',
        'eof',
        'dropped',
        'body',
        'transport',
        'h2',
        'http2',
        'connresetexception',
        'reading',
        'ended',
        'finish',
        'side',
        'end',
        'file',
        'invalidchunklength',
        'connectionreset',
        'zliberror',
        'stream_read_error',
        'message_stop',
        'terminal',
        'stopped',
        'incomplete',
        'payload',
        'clientpayloaderror',
        'transferencodingerror',
        'repeatedly',
        'decoding',
        'chunk',
        'stream_terminated',
        'receive',
        'mid',
        'midstream',
        'finished',
        'closed',
        'interrupted',
      ],
      text: /peer closed connection|connection (?:was )?(?:dropped|reset|lost|interrupted|terminated)(?! by (?:the )?user)|connection was closed|closed (?:the )?connection unexpectedly|stream (?:was )?(?:reset|interrupted|terminated)|stream error[^\n]{0,60}received from peer|stream id \d{1,9}; [a-z_]{3,30}; received from peer|err_stream_premature_close|nghttp2|\bstream(?:ing)?\b[^\n]{0,40}\beconnreset\b|\beconnreset\b[^\n]{0,40}\b(?:while|during) (?:streaming|reading)\b|reset by (?:peer|server)|other side closed|und_err_socket|socket (?:connection )?(?:was )?closed|remoteprotocolerror|chunkedencodingerror|incompleteread|incomplete chunked|response ended prematurely|unexpected (?:eof|end of (?:file|stream))|error decoding response body|transport error|h2 protocol error|connresetexception|error reading from server|error reading from (?:the )?(?:response )?stream\b|http2 error|stream error received|stream ended (?:with an invalid chunk|unexpectedly|prematurely|early|before (?:completion|the response))|\bmodel stream (?:was |is )?(?:invalid|empty|completed without)\b|stream (?:closed|ended) (?:before|without) (?:a )?finish[_ ](?:reason|event)|stream ended (?:before|without) (?:receiving )?(?:a |any |the )?(?:message_stop|terminal event|\[done\])|stream ended (?:before|without) (?:receiving )?(?:a |any |the )?(?:terminal|final) ['"`]?[a-z_]{2,30}['"`]? (?:event|chunk|message)\b|\bdid not receive (?:a |the |any )?(?:done|final|terminal|success|completion)\b[\w ]{0,30}\b(?:response|event|message|chunk) in (?:the )?stream\b|\bpremature end of (?:the )?(?:response|stream|body)\b|response stopped arriving|stalled mid-?stream|response payload is not completed|clientpayloaderror|transferencodingerror|ended the (?:response|stream) before (?:returning|completing|sending)|missing finish reason|invalidchunklength|\bconnectionreset\b|\bzliberror\b|\bstream_read_error\b|finish[_ ]reason\W{0,4}network_error\b|\bstream error: error decoding response\b|stream ended (?:before|without) (?:receiving )?(?:a |any |the )?terminal chunk|\bstream_terminated\b|\b(?:streaming )?response ended before any (?:complete )?data (?:was )?received\b|\bmid-?stream (?:drop|disconnect(?:ion)?|cut)\b|\b(?:[a-z]{2,20}['’]s )?response was interrupted\b|\bstream (?:finished|ended|closed) (?:before|without) (?:receiving )?(?:a |an |the )?['\x22`]?[a-z_]{2,30}\.(?:completed|done|finished)['\x22`]? event\b/,
      unless: streamLossVetoes,
    },
  },
];
