import { modelTarget } from './model-hosts.js';
import { proseCue } from './prose.js';
import type { Rule } from '../rule.js';

/** Tool services named by their host or product (see local.tool_service_host.v1). */
const toolServiceHost =
  /\bposthog|\b(?:index\.|static\.)?crates\.io\b|\brubygems\.org\b|\bproxy\.golang\.org\b|\bslack\.com\/api\/|\bdiscord(?:app)?\.com\/api\/|\bapi\.telegram\.org\b|\bpublic api service\b|\b(?:search|scrap(?:e|ing)|crawl(?:ing|er)?) api\b|\bapi\.tavily\.com\b|\btavily\b|\bfirecrawl(?:error)?\b|\bapi\.search\.brave\.com\b|\bexa (?:hit|api)\b|\bapi\.exa\.ai\b|\be2b\.dev\b|\bagentql\b/;
/** One character of a line that does not begin a tool service's name. */
const notToolServiceHost = `(?:(?!${toolServiceHost.source})[^\\n])`;

/**
 * A host's name (`wiki.intra.corp`): its last label is letters, so a model's name (`qwen3.7-max`, `mixtral.v2`) is
 * none. A bare address is no name: a provider's API is reached at an address too (a CDN's), so it tells no owner.
 */
const dottedHost = String.raw`[a-z0-9][a-z0-9.-]{0,120}\.[a-z]{2,24}\b`;

/**
 * The start of a URL that can be a request's target: not a documentation, status or health host, a console, a bare
 * public address (a CDN's or a provider's too: it tells no owner; a private one is the user's network), a link shortener, a chat invite, an issue tracker's page, or a path to docs, help, billing, settings or plans (links a message offers).
 */
const targetUrl = String.raw`(?<!\b(?:details|more|info|information|see|visit|issues|help|support|status|health|updates|upgrade|report|join us) (?:(?:at|on|in|to|for) )?['"(]?)https?:\/\/(?!(?:docs|help|support|status|community|developers?|console|platform|learn|dashboard|billing)\.|aka\.ms\b|goo\.gle\b|bit\.ly\b|(?!10\.|127\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.)\d{1,3}(?:\.\d{1,3}){3}(?=[:\/\s"')]|$)|discord\.gg\b|discord(?:app)?\.com\/invite\b|[a-z0-9.-]{0,60}(?:status|health)[a-z0-9-]{0,30}\.[a-z0-9.-]{0,60}(?=[\/:"'\s)?#]|$)|github\.com\/[^\s/]{1,60}\/[^\s/]{1,100}\/(?:issues|discussions|pull)\b|[^\s"']{0,160}\/(?:docs?|documentation|help|troubleshooting|guides?|billing|settings|pricing|plans?|usage|upgrade|topup|account|dashboard|faq|incidents)\b)[a-z0-9\[]`;

/** Where a failure names the host it could not reach or that answered it (see local.foreign_host.v1). */
const failureTarget = new RegExp(
  [
    // a URL where a request names its target: after a method, `url`, `uri` or `endpoint`, a request, fetch, call,
    // connection or delivery to it, a status answered from it, a service at it; or a URL a status or failure follows
    String.raw`\b(?:get|post|put|patch|delete|head|options|url|uri|endpoint(?: url)?|request(?:ing|ed)? (?:to|for|of)|requests? to|for url|fetch(?:ing)?(?: from)?|call(?:ing)?(?: to)?|connect(?:ing|ion)? to|reach(?:ing)?|(?:returned|responded|answered|received|failed|error(?:ed)?) (?:from|at)|(?:service|server|host|endpoint|api|site|backend|upstream) (?:at|on))[:=]?\s{0,2}(?:url\()?['"(\[]{0,2}${targetUrl}`,
    String.raw`\b[45]\d\d\b[^\n]{0,60}(?:\b(?:from|at|for)\s{1,2}|\()['"]?${targetUrl}`,
    String.raw`\b(?:submit|send|upload|deliver|forward|publish|export)[a-z]{0,3}\b[^\n]{0,40}\bto ['"(]?${targetUrl}`,
    String.raw`${targetUrl}[^\s"')]{0,200}['")]?:? (?:returned|responded|answered|replied|failed|timed out|is (?:down|unavailable|overloaded|unreachable)|\(?(?:http )?[45]\d\d\b)`,
    // Node: a DNS look-up naming its host (a name with no dot, a container's service name, tells no owner)
    String.raw`\bgetaddrinfo (?:enotfound|eai_again|eai_fail|eai_noname) ${dottedHost}`,
    // Go: a dial or a resolver's look-up
    String.raw`\bdial tcp[46]?:? (?:lookup )?${dottedHost}`,
    String.raw`\blookup [a-z0-9][a-z0-9.-]{0,120}(?: on [0-9a-f.:\[\]]{3,60})?: (?:no such host|server misbehaving|i\/o timeout)`,
    // curl, Python, Java, undici, aiohttp, pip: the host of a failed connection
    String.raw`\bcould not resolve host:? ['"]?${dottedHost}`,
    String.raw`\b(?:failed to|could not|cannot|can't|unable to) connect to (?:host |the endpoint url:? )?['"]?(?:https?:\/\/)?${dottedHost}`,
    String.raw`\bconnect(?:ing|ion)? to (?:host )?['"]?${dottedHost}`,
    String.raw`\bhttps?connectionpool\(host='`,
    String.raw`\bunknownhostexception: ${dottedHost}`,
    String.raw`\b(?:attempted address|hostname|host)[:=] ?['"]?${dottedHost}`,
    String.raw`\bon host ${dottedHost}`,
    String.raw`\btarget host ?name '`,
  ].join('|'),
);

/** A tool service's own wording (see local.tool_wording.v1). */
const toolWording =
  /\b(?:insufficient|not enough) credits (?:to perform|for) this (?:operation|action)\b|\bcreate an? (?:free )?api[ _-]?key\b[^\n]{0,80}\bfor (?:more|additional) (?:requests|quota|usage)\b|\bfailed to invoke (?:the )?(?:plugins?|tools?)\b|\binvokepluginfailed\b|\bfailed to retrieve (?:data )?from (?:the )?(?:documents?|knowledge base)\b|\bretri(?:e)?valfailed\b/;

/** An LLM provider's or its API's name (not a model id such as `claude-sonnet-4`, a workflow's tag). */
const llmProviderName = String.raw`\b(?:openai|anthropic|openrouter|deepseek|mistral|groq|bedrock|vertex ?ai|gemini api|claude api|azure openai|dashscope|moonshot|cohere|fireworks|together ai)\b(?![-.\w])`;

/**
 * A model provider's failure on a line of its own (`API Error: 429 {...}`, `ERROR: exceeded retry limit, last
 * status: 429`, `RESOURCE_EXHAUSTED`, `529 Overloaded`): the line that names no URL or host is the agent's model
 * call, so a tool's failure on another line (a hook, a status line, a fetched file) is not what ended the run.
 */
const providerFailureLine = String.raw`^(?![^\n]{0,400}(?:https?:\/\/|getaddrinfo|dial tcp|\blookup |connect(?:ion|ing)? to |could not resolve))[^\n]{0,300}?(?:\bapi error\b|\bresource_exhausted\b|\brate_limit_error\b|\boverloaded_error\b|\boverloaded\b|\bexceeded retry limit\b|\blast status: [45]\d\d\b|\b529\b)`;

/**
 * Errors Recourse recognizes but does not own: cancellation, context length, bad requests, local
 * permission and runtime failures, repository, task and resume state, and side channels (telemetry,
 * installers, MCP servers, IDE companions, keychain probes). They classify as `unclassified` with reason
 * `not_provider` and never drive retry or switching. Their priority is above provider signatures: when an
 * error is one of these, a provider word elsewhere in the text does not make it a provider failure.
 */
export const localRules: readonly Rule[] = [
  {
    id: 'local.cancellation.v1',
    description: 'Context cancellation, deadline, cancel escalation, aborted requests, user interrupts',
    tier: 'signature',
    priority: 50,
    code: 'cancelled',
    confidence: 'high',
    scope: 'request',
    when: {
      keywords: [
        'context',
        'cancel',
        'aborted',
        'aborterror',
        'apiuseraborterror',
        'interrupted',
        'cancelled',
        'canceled',
        'abandoned',
      ],
      text: /context (?:canceled|cancelled|deadline exceeded)|cancel escalated|request (?:was )?aborted|(?:the |this )?operation (?:was )?aborted|\baborterror\b|apiuseraborterror|user aborted|aborted by (?:the )?user|interrupted by (?:the )?user|request interrupted|(?:operation|request|prompt|turn) (?:was )?cancell?ed\b|cancell?ed by (?:the )?user|prompt abandoned/,
      unless:
        /client\.timeout|httpclient\.timeout|awaiting headers|response ended prematurely while waiting for the next frame/,
    },
  },
  {
    id: 'local.rpc_cancelled.v1',
    description: 'JSON-RPC -32800: the request was cancelled',
    tier: 'structured',
    code: 'cancelled',
    confidence: 'high',
    scope: 'request',
    when: { kinds: ['acp_error'], rpcCodes: [-32800] },
  },
  {
    id: 'local.context_length.v1',
    description: 'The prompt exceeds the model context window; waiting or switching providers cannot fix it',
    tier: 'signature',
    priority: 40,
    code: 'context_length_exceeded',
    confidence: 'high',
    scope: 'request',
    when: {
      keywords: [
        'context',
        'context_length_exceeded',
        'contextwindowexceedederror',
        'prompt',
        'input',
        'too',
        'messages',
        'contextwindowexceeded',
        'size',
      ],
      // A local model server's "decoder prompt ... is longer than the maximum model length" is the prompt's length,
      // even when the server answers it with a 500.
      text: /maximum context length|longer than the maximum model length|context[ _](?:length|window)(?: (?:limit|size))? (?:exceeded|is exceeded)|context_length_exceeded|contextwindowexceeded|(?:exceeds?|exceeded|longer than|larger than|beyond) (?:the )?(?:model'?s? |maximum |max |available )?(?:context|context window|context length|context limit)|exceed context limit|prompt is too long|input is too long|too many (?:input )?tokens in (?:the )?(?:prompt|request|input)|input (?:token count|tokens?)[^\n]{0,40}exceeds? the maximum|reduce the length of the messages|prompt (?:token count|tokens?) (?:of \d+ )?exceeds|request size exceeds model context window|context (?:is )?too (?:long|large)|context size (?:has been )?exceeded/,
      // A server that failed while computing the context length failed; the prompt's length is not the cause.
      unless: /internal error computing/,
    },
  },
  {
    id: 'local.request_too_large.v1',
    description: 'The request is larger than the limit allows, even a per-minute budget at zero usage',
    tier: 'signature',
    priority: 45,
    code: 'request_too_large',
    confidence: 'high',
    scope: 'request',
    when: {
      keywords: [
        'request',
        'request_too_large',
        'requesttoolargeerror',
        'payload',
        'entity',
        'used',
        'exceeds',
      ],
      text: /request too large|request_too_large|requesttoolargeerror|payload too large|request entity too large|request exceeds the maximum (?:allowed )?size|limit \d{1,12}, used 0, requested ~?\d{1,12}/,
    },
  },
  {
    id: 'local.tool_history.v1',
    description: 'Malformed tool-call history or modified thinking blocks in the request',
    tier: 'signature',
    priority: 40,
    code: 'bad_request',
    confidence: 'high',
    scope: 'request',
    when: {
      keywords: [
        'tool_use_id',
        'tool_result',
        'tool_use',
        'tool_call_id',
        'thinking',
        'redacted_thinking',
        'tool_calls',
        'function',
      ],
      text: /tool_use_id|tool_result. blocks?|tool_use. (?:ids? )?(?:blocks? )?(?:were found|without)|corresponding .?tool_use|tool_call_id|tool_calls. must be followed|(?:thinking|redacted_thinking). blocks?[^\n]{0,60}cannot be modified|expected .?thinking.? or .?redacted_thinking|function call turn comes immediately after|function response parts/,
    },
  },
  {
    id: 'local.invalid_request.v1',
    description:
      'Invalid parameters, content-policy blocks (a finish reason of SAFETY, PROHIBITED_CONTENT, BLOCKLIST, SPII or RECITATION) and output-token limits: the request itself is wrong',
    tier: 'signature',
    priority: 30,
    code: 'bad_request',
    confidence: 'high',
    scope: 'request',
    when: {
      keywords: [
        'extra',
        'unsupported',
        'unrecognized',
        'invalid',
        'invalid_parameter',
        'content_filter',
        'additional',
        'roles',
        'content_policy_violation',
        'content',
        'responsibleaipolicyviolation',
        'safety',
        'output',
        'max_tokens',
        'image',
        'flagged',
        'blocked',
        'supported',
        'prohibited_content',
        'blocklist',
        'spii',
        'recitation',
        'improperly',
      ],
      text: /extra inputs are not permitted|\bimproperly formed request\b|unsupported (?:parameter|value|content type)|unrecognized request argument|invalid (?:value|type) for|invalid_parameter|additional properties are not allowed|roles must alternate|content_policy_violation|content management policy|content[ _]filter(?:ing)?|responsibleaipolicyviolation|blocked (?:due to|by) safety|safety (?:filters?|settings) blocked|output blocked by|prompt was blocked|flagged (?:as|by) (?:potentially )?(?:harmful|inappropriate|moderation)|output token maximum|maximum allowed number of output tokens|max_tokens: \d{1,9} > \d{1,9}|image (?:exceeds|is too large|dimensions exceed)|could not process image|invalid base64|text content blocks must be non-empty|is not supported for provider\b|\bfinish_?reason["']?\s{0,2}[:=]?\s{0,2}["']?(?:safety|prohibited_content|blocklist|spii|recitation)\b/,
    },
  },
  {
    id: 'local.permission.v1',
    description:
      'Local file-system or sandbox permission denied, or a tool permission the user has not granted',
    tier: 'signature',
    priority: 40,
    code: 'local_permission',
    confidence: 'high',
    when: {
      keywords: [
        'eacces',
        'eperm',
        'permission',
        'operation',
        'sandbox',
        'sandboxing',
        'denied',
        'permissions',
        'rejected',
        'access',
        'errno',
      ],
      text: /\beacces\b|\beperm\b|permission denied,? (?:mkdir|open|scandir|unlink|rename|access|spawn|lstat|stat|rmdir|copyfile|symlink|write|read)|operation not permitted|sandbox\(denied|sandbox(?:ing)? (?:denied|blocked|violation)|not allowed by (?:the )?sandbox|requested permissions? to use[^\n]{0,80}(?:haven.t granted|not granted|denied)|tool use was rejected|\[errno 13\] permission denied|user denied (?:the )?(?:tool|permission)|access is denied\.?$/m,
    },
  },
  {
    id: 'local.runtime.v1',
    description:
      'The local runtime failed: missing binaries or modules, out of memory, disk full, serialization bugs, a self-hosted model server with no worker to serve a model (not when a managed endpoint such as SageMaker InvokeEndpoint answered it)',
    tier: 'signature',
    priority: 40,
    code: 'local_runtime',
    confidence: 'high',
    when: {
      keywords: [
        'enoent',
        'uv_spawn',
        'command',
        'cannot',
        'module',
        'err_module_not_found',
        'heap',
        'memory',
        'segmentation',
        'enospc',
        'space',
        'emfile',
        'serialize',
        'serialization',
        'maxfilereadtokenexceedederror',
        'npm',
        'etarget',
        'recognized',
        'file',
        'files',
        'core',
        'dumped',
        'version',
        'loop',
        'configured',
        'llama',
        'loading',
        'load',
        'attempt',
        'runner',
        'insufficient',
        'installed',
        'worker',
        'workers',
        'disk',
        'edquot',
      ],
      text: /\benoent\b|no such file or directory|uv_spawn|command not found|is not recognized as an internal or external command|cannot find module|err_module_not_found|javascript heap out of memory|out of memory|requires more system memory|more (?:system |gpu |v)?memory than (?:is )?available|segmentation fault|core dumped|\benospc\b|no space left on device|\bemfile\b|too many open files|serialize binary|serialization error|maxfilereadtokenexceedederror|file content \(\d{1,9} tokens\) exceeds maximum allowed tokens|npm err(?:or|!)?:? code|\betarget\b|no matching version found|agent loop died unexpectedly|session configured event was not the first|llama\.cpp error|failed to load (?:the )?model\b|model loading (?:was )?stopped|insufficient system resources|attempt to (?:call|index) (?:field|a nil value|local|global|upvalue)|llama runner process has terminated|runner process (?:has )?terminated|\b(?:is|are) not installed\b|(?<!(?:invokeendpoint|amazonaws|sagemaker)[\s\S]{0,400})\bhas no worker to serve (?:the )?inference request\b|(?<!(?:invokeendpoint|amazonaws|sagemaker)[\s\S]{0,400})\bscale workers api\b|\bdisk quota exceeded\b|\bedquot\b/,
    },
  },
  {
    id: 'local.chat_template.v1',
    description:
      "A model server failed to render the chat template (a Jinja error quoting the template's own `{%- set ... %}` source, \"error rendering chat template\"): the local runtime's template or the request's messages, not a provider that failed to serve; retrying renders it the same way, whatever 5xx it came under",
    tier: 'signature',
    priority: 40,
    code: 'local_runtime',
    confidence: 'medium',
    when: {
      // `{%- set` is the template's own source; `if`/`for` would run this on most texts.
      keywords: ['template', 'jinja', 'jinja2', 'templateerror', 'templatesyntaxerror', 'set', 'macro'],
      text: /\{%-?\s{0,3}(?:set|macro)\s|\b(?:error|failed) (?:while )?(?:rendering|applying|to render|to apply) (?:the )?chat[ _]template\b|\bchat[ _]template (?:error|rendering failed)\b|\bjinja2?\.exceptions\.|\brequires (?:the )?--jinja\b|\btemplate(?:syntax)?error\b[^\n]{0,80}\bjinja/,
    },
  },
  {
    id: 'local.software_fault.v1',
    description:
      "A program's own crash printed with the answer (a Go panic or nil pointer dereference, a Lua `bad argument #1 to 'gsub'` or an index of a nil value): a gateway's or a client's bug answered as a 500, not a provider that failed to serve; retrying meets the same bug",
    tier: 'signature',
    priority: 40,
    code: 'local_runtime',
    confidence: 'medium',
    when: {
      keywords: ['panic', 'nil', 'new_api_panic', 'argument', 'dereference'],
      text: /\bpanic detected\b|\bnil pointer dereference\b|\b[a-z_]{2,30}_panic\b|\bbad argument #\d{1,2} to '[\w.:]{1,40}' \(|\battempt to (?:index|call|concatenate|perform arithmetic on) (?:a )?nil value\b/,
    },
  },
  {
    id: 'local.signal_text.v1',
    description: 'A process killed by a signal or exiting 130/137/143 with no provider evidence',
    tier: 'pattern',
    priority: 10,
    code: 'local_runtime',
    confidence: 'high',
    when: {
      keywords: ['signal', 'sigkill', 'sigterm', 'sigint', 'sigabrt', 'sigsegv', 'code', 'killed', 'oom'],
      text: /(?:terminated|killed|exited) (?:by|with|due to) signal|\bsig(?:kill|term|int|abrt|segv|hup|quit)\b|exit(?:ed)? (?:with )?code:? ?(?:-9|-15|-2|130|134|137|139|143)\b|oom[- ]?kill|(?:^|\n)[^\s:]{1,40}: killed\b/,
      unless: proseCue,
    },
  },
  {
    id: 'local.process_signal.v1',
    description:
      'A process exit by signal or with a signal exit status; provider text in its tail outranks it',
    tier: 'structured',
    generic: true,
    code: 'local_runtime',
    confidence: 'high',
    when: {
      kinds: ['process_exit'],
      signals: ['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGABRT', 'SIGSEGV', 'SIGPIPE'],
      exitCodes: [-9, -15, -2, 130, 134, 137, 139, 143],
    },
  },
  {
    id: 'local.repository.v1',
    description:
      'Git and repository state: merge conflicts, not a repository, uncommitted changes in the way',
    tier: 'signature',
    priority: 40,
    code: 'repository_error',
    confidence: 'high',
    when: {
      keywords: ['conflict', 'merge', 'git', 'repository', 'overwritten', 'fatal', 'rebase', 'detached'],
      text: /merge conflict|conflict \(content\)|automatic merge failed|not a git repository|local changes to the following files would be overwritten|fatal: (?:unable to|could not|refusing to|pathspec|bad revision|ambiguous argument|not a valid)|rebase in progress|you are in .detached head/,
    },
  },
  {
    id: 'local.resume_state.v1',
    description:
      'A session or conversation to resume does not exist or cannot be resumed, or its session metadata could not be fetched',
    tier: 'signature',
    priority: 40,
    code: 'resume_state',
    confidence: 'high',
    when: {
      // A conversation or thread an API could not fetch (a 429 or a 5xx answered to that call) is the API's answer:
      // only the session metadata a resume reads is read as resume state.
      keywords: ['conversation', 'session', 'resume', 'deferred', 'rollout', 'thread'],
      text: /no conversation found|conversation (?:not found|does not exist)|session (?:[\w-]{1,64} )?(?:not found|does not exist|cannot be resumed)|(?:could not|cannot|failed to|unable to) (?:find|resume|load) (?:the )?(?:previous |prior )?(?:session|conversation|thread)|(?:could not|cannot|failed to|unable to) fetch (?:the )?session metadata\b|no deferred tool marker|invalid session id|no rollout (?:file )?found|thread not found/,
    },
  },
  {
    id: 'local.task.v1',
    description:
      'A task-level failure reported by the agent runtime (stream-json result errors, turn limits)',
    tier: 'structured',
    generic: true,
    code: 'task_error',
    confidence: 'medium',
    when: { fields: { subtype: ['error_during_execution', 'error_max_turns', 'error_max_budget_usd'] } },
  },
  {
    id: 'local.gateway_queue.v1',
    description:
      'A local gateway\'s own request queue gave up ("the local rate-limit queue budget", "not an upstream timeout"): the gateway\'s setting, not the provider',
    tier: 'signature',
    // Above the provider rules: the gateway quotes the upstream's words (a rate limit, a 503) around its own queue.
    priority: 40,
    code: 'local_runtime',
    confidence: 'high',
    when: {
      keywords: ['local', 'upstream'],
      text: /\blocal (?:rate[- ]limit(?:ing)? )?(?:request )?queue (?:budget|timeout|wait|is full|full|limit)|\bnot an upstream (?:timeout|error|failure)\b/,
    },
  },
  {
    id: 'local.model_file_download.v1',
    description:
      'A status or failure answered to the download of a model file or archive (a URL ending in .zip, .bin, .safetensors, .gguf, .onnx ...) or to the pull of a model manifest from a registry: a hub or file host, not a provider answering a prompt',
    tier: 'signature',
    // Below the tooling rules, whose words (an installer, a download of an extension) name the subject more exactly.
    priority: 33,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: [
        'zip',
        'gz',
        'tgz',
        'bin',
        'safetensors',
        'gguf',
        'onnx',
        'pt',
        'pth',
        'ckpt',
        'h5',
        'msgpack',
        'manifest',
        'manifests',
      ],
      text: /https?:\/\/[^\s"'<>]{1,200}\.(?:zip|tar\.gz|tgz|bin|safetensors|gguf|onnx|pth?|ckpt|h5|msgpack)(?=$|[\s"'?#),;])|\bpull(?:ing)? (?:the )?(?:model )?manifest\b|https?:\/\/[^\s"'<>/]{1,120}(?:\/[^\s"'<>/]{1,120}){0,6}\/v2\/[^\s"'<>/]{1,120}(?:\/[^\s"'<>/]{1,120}){0,3}\/manifests\//m,
    },
  },
  {
    id: 'local.non_model_request.v1',
    description:
      'An error whose structured request record names a GET (`"method":"GET"`) of a path that is no model endpoint: model calls are POSTs, so this is another API (a listing, a dashboard, a non-AI service) answering',
    tier: 'signature',
    priority: 34,
    code: 'side_channel',
    confidence: 'medium',
    when: {
      keywords: ['method', 'get'],
      text: /["']method["']\s{0,2}:\s{0,2}["']get["']/,
      // A model endpoint in the same text (a streaming GET of a responses socket) makes it a model call again.
      unless:
        /\/v1\/(?:messages|chat\/completions|completions)\b|:(?:stream)?generatecontent\b|\/responses\b/,
    },
  },
  {
    id: 'local.tooling_network.v1',
    description:
      'A network or TLS failure of the tools around the agent (sign-in, OAuth and device-code flows, installers and downloads, plugins, extensions, language servers, git, a container image pushed to a registry): not a provider failing a prompt (issue 10 decision)',
    tier: 'signature',
    // Below the named side channels and editor internals, above provider and network rules: the subject decides
    // whose failure it is.
    priority: 34,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: [
        'sign',
        'signin',
        'login',
        'log',
        'oauth',
        'token',
        'device',
        'callback',
        'install',
        'installing',
        'installation',
        'installer',
        'download',
        'downloading',
        'plugin',
        'plugins',
        'marketplace',
        'extension',
        'lsp',
        'language',
        'git',
        'gh',
        'npm',
        'gyp',
        'auth',
        'authentication',
        'push',
        'pushing',
        'image',
        'images',
        'ghcr',
        'quay',
        'gcr',
        'cachedextensionvsixs',
        'vsix',
        'extensionquery',
      ],
      near: {
        anchor:
          /error sending request|\berr_connection_(?:reset|refused|closed|aborted)\b|\bxhr failed\b|\be(?:timedout|notfound|connreset|connrefused|proto|ai_again)\b|getaddrinfo|could not resolve host|unable to access|\bssl\b|\btls\b|certificate|fetch failed|socket hang up|network (?:error|request failed)|timed out|connection (?:closed|reset|refused)|check your (?:internet|network) (?:connection|configuration|settings)|\bfailed, reason:/,
        word: /\b(?:sign[- ]?in|log[- ]?in|oauth|token exchange|device[- ]code|auth(?:orization)? callback|install(?:ing|ation|er)?|download(?:ing)?|plugins? (?:marketplace|install|update|download)|marketplace|extension host terminated|language server|lsp|git (?:push|pull|clone|fetch)|gh:|(?:request|obtain|fetch|get|refresh)(?:ing)? (?:an? |the )?access token|\bnpm (?:error|err!)|\bgyp err!|\b(?:sdk|cli|client) auth(?:entication)? failed|\bpush(?:ing)? (?:the )?(?:docker |container )?images?\b|\b(?:ghcr|quay|gcr)\.io\b|cachedextensionvsixs|\.vsix\b|\bextensionquery\b)/,
        before: 120,
        after: 60,
      },
      // A model call in the same text (an endpoint of a provider API) makes it a provider failure again; so does an
      // agent's own error line (`API Error: …`, `last status: 4xx|5xx`; round 29: a sign-in reset before `API Error: 401
      // … OAuth token has expired · Please run /login`), which is what ended the turn.
      unless:
        /\/v1\/(?:messages|chat\/completions|completions|responses)\b|:(?:stream)?generatecontent\b|\/backend-api\/codex\/responses|(?:^|\n)[^\n]{0,60}(?:\bapi error\b|\b(?:last|unexpected) status:? [45]\d\d\b)/,
    },
  },
  {
    id: 'local.tooling_status.v1',
    description:
      'An HTTP status or rate limit answered to a tool around the agent (git, gh, an installer or download, a plugin marketplace, a sign-in token refresh): the status carries no provider meaning',
    tier: 'signature',
    priority: 34,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: [
        'git',
        'gh',
        'push',
        'pull',
        'clone',
        'install',
        'installing',
        'installation',
        'installer',
        'download',
        'downloading',
        'marketplace',
        'refresh',
        'oauth',
        'callback',
      ],
      near: {
        anchor:
          /\b(?:http(?: error)?:? ?)?(?:40[34]|429|50[0234])\b|bad gateway|service unavailable|gateway time-?out|rate limit exceeded|rate[- ]limited\b/,
        word: /\b(?:git (?:push|pull|clone|fetch)|failed to push some refs|gh:|gh api|install(?:ing|ation|er)?|download(?:ing)?|marketplace|(?:oauth |access )?token refresh(?:es)?\b|\boauth error\b|\/(?:auth|oauth2?)\/callback\b)/,
        before: 120,
        after: 60,
      },
      // A model call in the same text (an endpoint of a provider API) makes it a provider failure again.
      unless:
        /\/v1\/(?:messages|chat\/completions|completions|responses)\b|:(?:stream)?generatecontent\b|\/backend-api\/codex\/responses/,
    },
  },
  {
    id: 'local.foreign_host.v1',
    description:
      "A failure whose target (the URL it requested, the host it looked up or connected to) is no model provider's API host, no model API path on any host and no local model server's port (safety audit 2): a tool or service around the agent failed, whatever its network error, status or quota word; a model host, path or port anywhere in the text, or a proxy on the way out, leaves it to the provider and network rules",
    tier: 'signature',
    // Below the named tool rules (33 and up), whose subjects are more exact; above every provider rule (30 and
    // below) and every network rule, whose words these texts carry.
    priority: 32,
    code: 'side_channel',
    confidence: 'medium',
    when: {
      // An HTTP answer is the provider adapter's own request: the host its body names is upstream of that call.
      // An SDK's exception and an ACP error carry the agent's own model call the same way (review finding 8).
      kinds: ['stderr', 'process_exit'],
      keywords: [
        'http',
        'https',
        'getaddrinfo',
        'connect',
        'dial',
        'lookup',
        'resolve',
        'connecting',
        'connection',
        'httpsconnectionpool',
        'httpconnectionpool',
        'unknownhostexception',
        'attempted',
        'host',
        'hostname',
      ],
      text: failureTarget,
      unless: new RegExp(`${modelTarget.source}|${providerFailureLine}`, 'm'),
    },
  },
  {
    id: 'local.tool_subject.v1',
    description:
      "A failure whose subject names a tool around the agent (safety audit 2026-12-05): a package registry or installer, a git host or its API, an MCP server or a tool call, a search, fetch or scraping tool, tracing and update checks, a sign-in token endpoint, a language server, browser automation, a database, a webhook or SaaS API, a cloud management CLI or API, the user's own server on localhost, a metered Google API that is no model: the network error, status or quota word is theirs, not a model provider's",
    tier: 'signature',
    // Below the runtime rule (npm's own `npm error code ETARGET` stays local_runtime) and the tooling rules, whose
    // subject words are more exact; above every provider and network rule, whose words these texts carry.
    priority: 33,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: [
        'registry',
        'repo',
        'repo1',
        'maven',
        'artifact',
        'dependencies',
        'nuget',
        'index',
        'pnpm',
        'npm',
        'go',
        'verifying',
        'returned',
        'rpc',
        'pack',
        'hung',
        'gitlab',
        'glab',
        'bitbucket',
        'stderr',
        'mcp',
        'mcperror',
        'discovering',
        'tool',
        'webfetch',
        'exa',
        'serpapi',
        'serp',
        'scrapingbee',
        'duckduckgo',
        'otel',
        'export',
        'traces',
        'honeycomb',
        'datadog',
        'version',
        'crash',
        'oauth',
        'oauth2',
        'lsp',
        'gopls',
        'analyzer',
        'textdocument',
        'net',
        'goto',
        'browsertype',
        'puppeteer',
        'playwright',
        'psycopg',
        'psycopg2',
        'sqlalchemy',
        'database',
        'hy000',
        'sqlite',
        'dynamodb',
        'supabase',
        'django',
        'closed',
        'webhook',
        'zapier',
        'stripe',
        'twilio',
        'notion',
        'atlassian',
        'jira',
        'sonarcloud',
        'sonarqube',
        'calling',
        'operation',
        'gcloud',
        'server',
        'digitalocean',
        'cloudflare',
        'vercel',
        'deployment',
        'localhost',
        '127',
        'dev',
        'asgi',
        'youtube',
        'maps',
        'geocoding',
        'places',
        'drive',
        'sheets',
        'gmail',
        'calendar',
        'over_query_limit',
        'put',
        'patch',
        'delete',
        'get',
        '5432',
        '3306',
        '6379',
        '27017',
        '9200',
        '5173',
        '4173',
        '9222',
        '4200',
        'devtools',
        'proxy',
        'vite',
        'preview',
        'googleapis',
        'flag',
        'flags',
        'update',
        'deploy',
        'fly',
        'netlify',
        'heroku',
        'railway',
        'elasticsearch',
        'opensearch',
        'es_rejected_execution_exception',
        'webhook',
        'webhooks',
        'confluence',
        'circleci',
        'mapbox',
        'sendgrid',
        'mailgun',
        'algolia',
        'contentful',
        'shopify',
        'salesforce',
        'hubspot',
        'zendesk',
        'linear',
        'asana',
        'trello',
        'figma',
        'airtable',
        'pagerduty',
        'launchdarkly',
        'growthbook',
        'segment',
        'mixpanel',
        'amplitude',
        'cloudinary',
        'auth0',
        'okta',
        'remote',
        'rejected',
        'ioredis',
        'port',
        'psql',
        'kubectl',
        'connect',
        'azure',
        'number',
        'management',
        'executing',
        'web_fetch',
        'search',
        'selenium',
        'webdriver',
        'cassandra',
        'nohostavailable',
        'neo4j',
        'couchbase',
        'cockroachdb',
        'clickhouse',
        'snowflake',
        'bigquery',
        'firestore',
        'memcached',
        'rabbitmq',
        'kafka',
        'wrangler',
        'workers',
        'docker',
        '9042',
        'resourcerequeststhrottled',
        'subscriptionrequeststhrottled',
        'tenantrequeststhrottled',
        'googleapi',
      ],
      text: new RegExp(
        [
          // package registries and installers (a Go module's fetch: `go: module@version: ...`, `verifying go.sum`)
          /\bregistry\.(?:npmjs\.org|yarnpkg\.com|npmmirror\.com)\b|\brepo1?\.maven(?:\.apache)?\.org\b|\bcould not (?:transfer|resolve) (?:artifact|dependencies)\b|\bapi\.nuget\.org\b|\bunable to load the service index\b|\berr_pnpm_[a-z_]{2,40}|\bnpm (?:err!|error) \d{3}\b|(?:^|\n)go: (?:downloading |finding |verifying )?[\w.~/-]{1,160}@v\d[\w.+-]{0,60}:? |\bverifying go\.(?:sum|mod)\b/,
          // git hosts and their APIs (a push a git server turned down, its `remote:` lines)
          /\[remote rejected\]|(?:^|\n)remote: [a-z]|\bthe requested url returned error: \d{3}\b|\brpc failed; http \d{3}\b|\bsend-pack: |\bthe remote end hung up unexpectedly\b|\bgitlab\.com\/api\/|\bglab\b|\bapi\.bitbucket\.org\b/,
          // MCP servers and the tool calls an agent makes
          /\bserver stderr:|\bmcp error -?\d{3,5}\b|\bmcperror\b|\berror discovering tools\b|\btool call to [\w.-]{1,40} failed\b|\berror executing tool\b|\bweb_fetch\b|\bfailed to call tool\b/,
          // search, fetch and scraping tools
          /\bwebfetch (?:failed|error)\b|\b(?:exa|brave|bing|kagi|searx(?:ng)?|serper) search\b|\bserp ?api\b|\bscrapingbee\b|\bduckduckgo\b/,
          // tracing, crash reports and update checks
          /_otel\b|\bfailed to export (?:spans|traces|logs|metrics)\b|\/v(?:1|0\.\d)\/traces\b|\bhoneycomb\.io\b|\bdatadog\b|\b(?:checking|check) for (?:a )?new version\b|\bcrash report\b/,
          // a sign-in's token endpoint (no model endpoint is an OAuth token path)
          /\/oauth2?\/token\b/,
          // language servers
          /\blsp\[|\bgopls\b|\brust-analyzer\b|\btextdocument\//,
          // browser automation (a page navigation's net::ERR_ at a URL; an editor's own request says it without one)
          /\bnet::err_[a-z0-9_]{3,60} at https?:\/\/|\bpage\.goto\b|\bbrowsertype\.launch\b|\bselenium\b|\bwebdriver|\bpuppeteer\b|\bplaywright\b/,
          // databases and their drivers, and the ports databases and search engines listen on (no model API does)
          /:(?:5432|3306|6379|27017|9200|9042)\b|\bport (?:5432|3306|6379|27017|9200|9042)\b|\b(?:cassandra|nohostavailable|neo4j|couchbase|cockroachdb|clickhouse|snowflake|bigquery|firestore|memcached|rabbitmq|kafka)\b|\bpsql: |\bioredis\b|\bpsycopg2?\b|\bsqlalchemy\b|\bcan't reach database server\b|\berror \d{4} \(hy\d{3}\)|\bsqlite_busy\b|\bdatabase is locked\b|\bdynamodb\b|\.supabase\.co\b|\bdjango\.db\b|\bserver closed the connection unexpectedly\b/,
          // webhooks and SaaS APIs
          /\bwebhook delivery\b|\bhooks\.zapier\.com\b|\bcommunicating with stripe\b|\bstripe\.error\b|\bapi\.stripe\.com\b|\btwilio\b|\bapi\.notion\.com\b|\bnotion api\b|\.atlassian\.net\b|\bjira\b|\bsonar(?:cloud|qube)\b/,
          // cloud management CLIs and APIs (a model invocation, InvokeModel or Converse, and Workers AI stay model calls)
          /\bkubectl\b|\bunable to connect to the server: |\bazure resource manager\b|\bnumber of (?:read|write|delete) requests for subscription\b|\b(?:resource|subscription|tenant)requeststhrottled\b|\bnumber of (?:'?(?:read|write|delete)'? )?requests for (?:subscription|tenant|action) '|\baka\.ms\/arm-throttling\b|\berror (?:creating|updating|deleting|destroying|importing|when reading or editing) [a-z][\w ./-]{1,60}: googleapi: |\bmanagement\.azure\.com\b|\bwhen calling the (?!invoke|converse)[a-z]{2,60} operation\b(?![^\n]{0,200}\b(?:invokemodel|converse)\w{0,20}\b)|\boperation error (?!bedrock)[\w ]{1,40}: (?!invoke|converse)[a-z]{2,60}\b|\(gcloud\.[a-z.-]{2,60}\)|\bfor operation type - |\berror from server \([a-z]{2,40}\)|\bapi\.digitalocean\.com\b|\bapi\.cloudflare\.com\/client\/v4\/(?!accounts\/[^\s/]{1,64}\/ai\/)|\bwrangler\b|\/accounts\/[^\s/]{1,64}\/workers\/|\bdocker daemon\b|\bvercel cli\b|\bdeployment service\b/,
          // the user's own server: an /api/ path on localhost that no local model server serves, a dev server, an ASGI app
          // (not on a port only model servers take: Ollama 11434, LM Studio 1234, KoboldCpp 5001, Jan 1337)
          /\bhttps?:\/\/(?:localhost|127\.0\.0\.1)(?!:(?:11434|1234|5001|1337)\b)(?::\d{1,5})?\/api\/(?!chat\b|generate\b|embed|v\d|tags\b|show\b|pull\b|ps\b|version\b|copy\b|create\b|push\b|delete\b)[\w-]{1,40}\b|\bdev server\b|\bexception in asgi application\b/,
          // metered Google APIs that serve no model, and the quota of any Google service that is no model API
          /\b(?:youtube|maps|geocoding|places|drive|sheets|gmail|calendar)(?: data)? api\b|\bover_query_limit\b|\bof service '(?!generativelanguage\b|aiplatform\b|cloudaicompanion\b|cloudcode-pa\b|vertexai\b|[a-z0-9-]{0,30}-aiplatform\b)[a-z0-9-]{2,60}\.googleapis\.com'/,
          // a PUT, PATCH or DELETE to a URL: a model prompt is a POST (or a GET of a stream)
          /\b(?:put|patch|delete) "?https?:\/\//,
          // a loopback port that a database, a search engine, a dev server or a browser's debugger listens on;
          // a dev server's proxy
          /\b(?:localhost|127\.0\.0\.1|::1)\]?:(?:5432|3306|6379|27017|9200|5173|4173|9222|4200)\b|\/devtools\/(?:browser|page)\/|\bcould not proxy request\b|\bvite preview\b/,
          // a loopback URL whose path neither a local model server nor an agent's own server serves (the user's own
          // app: /orders, /users/1), on a port other than a model server's own (11434, 1234, 5001, 1337);
          // an agent's server takes its prompts at a session, thread or run path
          /\bhttps?:\/\/(?:localhost|127\.0\.0\.1)(?!:(?:11434|1234|5001|1337)\b)(?::\d{1,5})?\/(?!v\d|api\/|completions?\b|chat\b|generate|embed|infer|health|models?\b|responses\b|messages?\b|openai\b|tokenize|detokenize|slots\b|props\b|metrics\b|sessions?\b|reply\b|prompts?\b|agents?\b|conversations?\b|threads?\b|runs?\b|stream|events?\b|rpc\b|acp\b|mcp\b|sse\b|ws\b)[a-z][\w-]{1,40}\b/,
          // feature flags and update checks
          /\bfeature flags?\b|\bupdate[- ]check\b/,
          // deploy tools and hosting APIs
          /\bdeploy failed\b|\b(?:fly|netlify|vercel|railway|heroku) deploy\b|\bthe fly api\b|\bapi\.netlify\.com\b|\bapi\.heroku\.com\b/,
          // search engines and the SaaS tools an agent's scripts call
          /\belasticsearch|\bopensearch\b|\bes_rejected_execution_exception\b|\b(?:slack|discord|teams|github|gitlab|stripe) webhooks?\b|\bwebhooks? (?:delivery|returned|failed|responded|error)\b|\b(?:confluence|circleci|mapbox|sendgrid|mailgun|algolia|contentful|shopify|salesforce|hubspot|zendesk|asana|trello|figma|airtable|pagerduty|launchdarkly|growthbook|mixpanel|amplitude|cloudinary|auth0|okta)\b|\blinear api\b|\bsegment api\b/,
        ]
          .map((part) => part.source)
          .join('|'),
      ),
      // A model call in the same text (an endpoint of a provider API) makes it a provider failure again.
      unless:
        /\/v1\/(?:messages|chat\/completions|completions|responses)\b|:(?:stream)?generatecontent\b|\/backend-api\/codex\/responses/,
    },
  },
  {
    id: 'local.side_channel.v1',
    description:
      "Telemetry, installer and update downloads, MCP servers, IDE companion and an editor extension's activation, keychain and settings probes, databases a tool connects to, a cloud management API's throttle (a Describe or List operation, a throttle answered with 400), a container registry's pull throttle, a sign-in's code-for-token exchange, an analytics relay, cargo's spurious network error, a search helper, a usage meter of a metered tool API (`rate_current`, `quota_current`), a service that calls itself a public API, a server's own response or an app's own local API whose stream closed early, the GitHub CLI asking for its own login before an extension install",
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: [
        'gh_token',
        'e401',
        'e403',
        'httperrorauthunknown',
        'azd',
        'firebase',
        'vercel',
        'netlify',
        'heroku',
        'wrangler',
        'supabase',
        'doppler',
        'dynamic',
        'streamablehttp',
        'fetching',
        'memory',
        'smithery',
        'smithery_api_key',
        'cookie',
        'action',
        'extension',
        'clearcut',
        '1p',
        'telemetry',
        'otlp',
        'opentelemetry',
        'statsig',
        'sentry',
        'installing',
        'update',
        'updates',
        'autoupdate',
        'autoupdater',
        'autoupdating',
        'mcp',
        'ide',
        'companion',
        'keychain',
        'seckeychain',
        'libsecret',
        'keytar',
        'settings',
        'vscode',
        'event',
        'download',
        'otlpexportererror',
        'curl',
        'installation',
        'install',
        'installer',
        'version',
        'release',
        'releases',
        'credits',
        'credit',
        'usage',
        'balance',
        'billing',
        'account',
        'user',
        'subscription',
        'edit',
        'edit_prediction',
        'predict_edits',
        'daemon',
        'docker',
        'oauth',
        'downloading',
        'binary',
        'eligibility',
        'search',
        'mcp_tool_result',
        'github',
        'authenticated',
        'qdrant',
        'qdrant_client',
        'chroma',
        'redis',
        'pinecone',
        'weaviate',
        'milvus',
        'vectorstore',
        'vector',
        'metrics',
        'periodicexportingmetricreader',
        '4318',
        '4317',
        'sentry',
        'pythonhosted',
        'pypi',
        'installing',
        'device',
        'sign',
        'modelcontextprotocol',
        'tool',
        'sandboxerror',
        'sandbox',
        'ready',
        'policy',
        'embedding',
        'embeddings',
        'initialize',
        'pricing',
        'prices',
        'logging',
        'huggingface',
        'safety',
        'activation',
        'ide',
        'studio',
        'intellij',
        'jetbrains',
        'pycharm',
        'webstorm',
        'goland',
        'xcode',
        'vscode',
        'vs',
        'visual',
        'mongodb',
        'mongoservererror',
        'mongonetworkerror',
        'mongoparseerror',
        'postgres',
        'postgresql',
        'mysql',
        'ms',
        'toomanyrequests',
        'calling',
        'operation',
        'throttlingexception',
        'throttling',
        'exchange',
        'exchanging',
        'analytics',
        'spurious',
        'searching',
        'fetching',
        'getimages',
        'getvideos',
        'getsources',
        'getsearchresults',
        'fetchimages',
        'fetchvideos',
        'fetchsources',
        'fetchsearchresults',
        'searchimages',
        'searchvideos',
        'searchsources',
        'searchsearchresults',
        'rate_current',
        'quota_current',
        'serverresponse',
        'streamablefile',
        'localhost',
        '127',
        'pulling',
        'secondary',
        'scraping',
      ],
      // Shell tools and installers (curl's own `curl: (28)` lines, a failed installation or release download) and
      // account look-ups beside the prompt (credits, usage, balance): none of them is a provider failing a prompt.
      // A memory index (embeddings for an agent's search), an MCP registry's own key and a usage monitor that reads the
      // browser's session cookie are side tasks: their missing key or login is not the agent's prompt refused.
      // A package registry's E401, a deployment CLI's own login, an MCP server's client registration or transport, an
      // editor-stats fetch and a SaaS account closed to its public API are the tools around the agent.
      text: /\b(?:started|signed in|logged in) with github cli\b|\bgh extension install\b|\bgh_token environment variable\b|\bmcp:[a-z][\w-]{2,40}\b|\b(?:npm (?:err!|error) )?code e40[13]\b|\bhttperrorauth\w{0,20}|\brun .?(?:azd|firebase|vercel|netlify|heroku|wrangler|supabase|doppler)(?: auth)? login\b|\bdynamic client registration failed\b|\bstreamablehttp server\b|\berror fetching [\w ]{0,30}\b(?:stats|statistics)\b|\b(?:restricted|blocked|disabled) from (?:accessing|using) the public api\b|\bmemory (?:index|indexing|search)(?: (?:failed|error))?\b|\bsmithery(?:_api_key)?\b|\bsession cookie\b[^\n]{0,80}\bin your browser\b|\baction: [\w.]{0,80}\.deploy[a-z]{0,30}\b|(?:^|\n)\s{0,4}oauth token: \S|--install-extension\b|(?<!failed to perform, )\bcurl: \(\d{1,3}\)|installation failed|failed to install|install(?:er|ation)? (?:failed|error)|failed to (?:fetch|download) (?:the )?(?:latest )?(?:version|release|releases)\b|failed to (?:fetch|load|get|retrieve|refresh) (?:the )?(?:user'?s? |account )?(?:credits?|credit information|usage(?: data| stats)?|balance|billing info(?:rmation)?|account info(?:rmation)?|user info(?:rmation)?|subscription status)\b|\bedit[_ ]predictions?\b|predict_edits|error response from daemon|registry-1\.docker\.io|invalid oauth error response|clearcut|1p event logging|event logging|telemetry|\botlp(?:exporter|\b)|opentelemetry|statsig|sentry\.io|error installing (?:the )?(?:server|extension|update)|auto-?updat(?:e|er|ing)|failed to (?:check for|install|download|apply) (?:the )?updates?|update check failed|updates\/download|vscode-reh|\bmcp (?:server|error|client|tool|connection)|mcp server|\bide (?:companion|extension|integration|server|connection)|companion (?:extension|server|connection)|keychain|seckeychain|libsecret|keytar|(?:failed|unable) to (?:read|load|parse) (?:the )?(?:managed |optional |user |project )?settings|downloading (?:the )?extension|\bbinary request timed out\b|could not get enabled capabilities|eligibility check failed|error during web search|\bweb search failed\b|mcp_tool_result|api\.github\.com|authenticated requests get a higher rate limit|\bqdrant|\bchroma\b|\bredis(?::\/\/|\.exceptions|\/connection|\b)|\bpinecone\b|\bweaviate\b|\bmilvus\b|\bvector ?store|metrics export(?:er)? failed|periodicexportingmetricreader|port=431[78]\b|:431[78]\/|\/v1\/metrics\b|\bsentry\b|files\.pythonhosted\.org|\bpypi\.org|pip\._vendor|installing extensions?\b|could not log in with device flow|\bsign in failed\b|@modelcontextprotocol\/sdk|tool execution failed|sandboxerror|sandbox failed to start|waiting for client to become ready|blocked by network policy|(?:with url|request to):? \S{0,60}\/embeddings?\b|\bplugin\(mcp\/|https?:\/\/\S{1,120}\/mcp(?=[:\s"']|$)|before responding to .?initialize.? request|(?:error|failed to|unable to|could not) (?:fetch|fetching|load|loading|get|getting|download|downloading) (?:the )?(?:model )?(?:pricing|prices)\b|\bin (?:success|failure) logging\b|huggingface\.co\S{0,80}\/resolve\/|cannot (?:determine|assess|check|verify) the safety of|safety (?:classifier|checker?) (?:is )?(?:unavailable|failed|down)\b|\bextension activation failed\b|\bno ide (?:selected|found|detected|connected|available)\b|(?:failed to connect|disconnected|unable to connect) (?:to|from) (?:android studio|intellij(?: idea)?|jetbrains|pycharm|webstorm|goland|xcode|vs ?code|visual studio(?: code)?)\b|\bmongodb(?:\+srv)?\b|\bmongo(?:server|network|parse)error\b|\bpostgres(?:ql)?:\/\/|\bmysql\b|x-ms-ratelimit-remaining-(?:subscription|tenant)-(?:reads|writes|deletes)|\btoomanyrequests: (?:retry-after:|you have reached your (?:unauthenticated )?pull rate limit|too many requests\b)|\berror pulling image\b|\bexceeded a secondary rate limit\b|\bfor more on scraping github\b|\bwhen calling the (?:describe|list)[a-z]{2,60} operation\b|\boperation error [\w ]{1,40}: (?:describe|list)[a-z]{2,60}\b|\bthrottling(?:exception)?:? rate exceeded,? status ?code:? 400\b|\bstatus ?code: 400\b[^\n]{0,80}\bthrottlingexception\b|\bexchanging (?:the )?(?:authori[sz]ation )?code for (?:an? )?(?:access )?tokens?\b|\b(?:oauth |authori[sz]ation )?(?:code|token) exchange failed \(\d{3}\)|\banalytics (?:proxy|relay|endpoint|request)|\bspurious network error \(\d{1,3} tries? remaining\)|\berror searching with\b|\bfailed fetching sources\b|\bat (?:get|fetch|search)(?:images|videos|sources|searchresults)\b|"(?:rate|quota)_current"\s{0,2}:|\bserverresponse\.onclose\b|\[streamablefile\]|\bwhile trying to fetch https?:\/\/(?:localhost|127\.0\.0\.1)(?::\d{1,5})?\/api\/(?!chat\b|generate\b|embed|v1\b)[\w-]{1,40}\//,
      // A POST to a model endpoint in the same text is the agent's model call, even when curl printed it; so is an
      // agent's API Error line naming a model host (round 29: Gemini CLI's `[API Error: request to
      // https://cloudcode-pa.googleapis.com/…:streamGenerateContent failed …]` above a status line about MCP servers).
      unless: new RegExp(
        String.raw`\bpost https?:\/\/\S{1,200}\/(?:v1\/)?(?:messages|chat\/completions|completions|responses)\b|\bapi error\b[^\n]{0,80}?(?:` +
          modelTarget.source +
          ')',
      ),
    },
  },
  {
    id: 'local.tool_wording.v1',
    description:
      "A tool service's own wording, read only where no model is named (catalogue review, 2026.12.05-18): credits to perform an operation of a metered data API, an anonymous tier that asks for a free API key for more requests, an application's failed plugin or tool call or document retrieval; a model provider's host, a model path or port, a model named as the failure's subject (model_not_found, a model field, model X rate limit) or an LLM provider's name on the failing line make the same words a provider's",
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: [
        'credits',
        'free',
        'plugin',
        'plugins',
        'invokepluginfailed',
        'tool',
        'tools',
        'retrieve',
        'retrivalfailed',
        'retrievalfailed',
      ],
      text: toolWording,
      // A model named as the failure's subject, not a word that tool output carries anyway (tokens, a workflow's
      // `model=` tag, `used by model X`): a model host, path or port, `model_not_found`, a `model` field, `(model:
      // X)`, `model X rate limit|quota|overloaded|not found`, or an LLM provider's name on the failing line.
      unless: new RegExp(
        [
          modelTarget.source,
          String.raw`\bmodel_not_found\b|"model"\s{0,2}:|\bmodel: [\w.:/@-]{2,80}`,
          String.raw`\bmodel [\w.:/@-]{2,80} (?:rate[- ]limit|quota|is overloaded|overloaded|not found|is unavailable|unavailable|does not exist)`,
          String.raw`${llmProviderName}[^\n]{0,300}(?:${toolWording.source})|(?:${toolWording.source})[^\n]{0,300}${llmProviderName}`,
        ].join('|'),
        'm',
      ),
    },
  },
  {
    id: 'local.device_api.v1',
    description:
      "A home-automation device API throttled or failed (a device command, a camera's WebRTC stream, other devices sharing one vendor API, a home service call): no model was called",
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['devices', 'executedevicecommand', 'devicecommand', 'webrtc', 'call_service'],
      text: /\b(?:execute)?devicecommand\b|\bother devices\b[^\n]{0,60}\bapi\b|\bwebrtc (?:stream|steam)\b|\bcall_service\b/,
    },
  },
  {
    id: 'local.claude_code_axios.v1',
    description:
      'Claude Code calls its model through the Anthropic client and prints the failure as `API Error: ...`; an AxiosError is one of its side requests (sign-in, version check, feature flags), not the prompt',
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'medium',
    when: {
      sources: ['claude-code'],
      keywords: ['axioserror'],
      text: /\baxioserror\b/,
      unless: /\bapi error\b/,
    },
  },
  {
    id: 'local.tool_service_host.v1',
    description:
      "A tool service named by its host or product (a package registry's index, a messaging platform's web API, a search, scrape or crawl API, an analytics client): a side channel, unless the text ends with the agent's own error line (`ERROR: ... last status: 429`, `API Error: 503`) that does not name it",
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: [
        'exa',
        'e2b',
        'agentql',
        'posthog',
        'posthogproxy',
        'crates',
        'rubygems',
        'golang',
        'slack',
        'discord',
        'discordapp',
        'telegram',
        'public',
        'scrape',
        'scraping',
        'crawl',
        'crawling',
        'crawler',
        'tavily',
        'firecrawl',
        'firecrawlerror',
        'brave',
        'search',
      ],
      text: toolServiceHost,
      // The agent's own terminal error line outranks a tool named earlier in the tail (a `cargo build` that updated
      // the crates.io index, a grep that printed a Slack URL): only a tool named on that line is read.
      unless: new RegExp(
        String.raw`(?:^|\n)${notToolServiceHost}{0,40}\b(?:error:${notToolServiceHost}{0,80}\b(?:last|unexpected) status:? [45]\d\d|api error:?\s{0,3}[45]\d\d)\b${notToolServiceHost}{0,600}\s*$`,
      ),
    },
  },
  {
    id: 'local.problem_details_throttle.v1',
    description:
      "A throttle in RFC 7807 problem details (a type, then the title 'Too Many Requests') whose detail names an API's request quota, from a source that is no model provider and with no model path or model in the text: a REST management API's shape",
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'high',
    when: {
      // A named provider's 429 in this format (NVIDIA's model API answers so) stays a rate limit.
      sources: ['generic'],
      keywords: ['title'],
      text: /"type"\s{0,2}:\s{0,2}"[^"\n]{1,120}",\s{0,8}"title"\s{0,2}:\s{0,2}"too many requests"[^]{0,300}\bapi (?:request |call )?quota\b/,
      // An `instance` or a text naming a model path, a model or tokens is a model API's answer.
      unless:
        /"instance"\s{0,2}:\s{0,2}"[^"\n]{0,120}\/(?:chat|completions?|messages|responses|generate|nvcf|functions|deployments|models)\b|\/v1\/(?:messages|chat\/completions|completions|responses)\b|\bmodels?\b|\btokens?\b/,
    },
  },
  {
    id: 'local.editor_internals.v1',
    description:
      "The editor's own machinery: a stack in the editor's code (vscode-file://), a language-server client losing its server, a server-side log of a client's connection",
    tier: 'signature',
    // Below the runtime and permission rules (a serialization bug in the editor stays local_runtime), above
    // every provider and network rule.
    priority: 35,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['vscode', 'server', 'http2', 'language', 'extension', 'sse'],
      text: /\[extension host\][^\n]{0,80}\bsse\b|vscode-file:\/\/|connection to server got closed|couldn.t create connection to server|restarting server failed|language server (?:crashed|exited|failed|stopped)|http2: server connection error from/,
    },
  },
  {
    id: 'local.cloud_control_throttle.v1',
    description:
      "AWS's generic throttle, `Throttling(Exception): Rate exceeded`, with no model operation or model named: the words of the control-plane APIs (STS, SSM, CloudWatch, a Describe or List call), not of a model invocation, which says too many requests or tokens",
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'medium',
    when: {
      keywords: ['throttlingexception', 'throttling'],
      text: /\bthrottling(?:exception)?:? rate exceeded\b/,
      // A model invocation (Bedrock's runtime, InvokeModel, Converse, an agent's InvokeAgent) or a model in the text
      // makes the same words a provider's throttle.
      unless:
        /\bstatus ?code:? ?429\b|\bbedrock|\binvoke(?:model|agent)|\bconverse(?:stream)?\b|\bmodel(?:id)?\b|\banthropic\b|\bclaude\b|\btitan\b|\bnova\b|\bllama\b/,
    },
  },
  {
    id: 'local.embedded_http_client.v1',
    description:
      "A negative code where an HTTP status belongs, with an embedded HTTP client's own error string (`API -1: Connection Refused`, `-11: read Timeout`): a device's client (Arduino or ESP HTTPClient) reporting, never an agent's model call",
    tier: 'signature',
    priority: 33,
    code: 'side_channel',
    confidence: 'medium',
    when: {
      keywords: [
        'refused',
        'header',
        'payload',
        'connected',
        'lost',
        'stream',
        'server',
        'ram',
        'encoding',
        'write',
        'timeout',
      ],
      text: /\b(?:api|http|https?client|code|error|status)\s{1,3}-(?:[1-9]|1[01])\s{0,2}:\s{0,2}(?:connection refused|send header failed|send payload failed|not connected|connection lost|no stream|no http server|too less ram|transfer-?encoding not supported|stream write error|read timeout)\b/,
      // A model host, path or port in the text makes it the agent's own request after all.
      unless: modelTarget,
    },
  },
];
