/**
 * Credential and account-identifier patterns. Each runs only when its cheap literal `hint` occurs in the text
 * (checked case-insensitively when `caseless`), so clean text costs a few `includes` calls. Every pattern is
 * linear: bounded or possessive-free quantifiers over disjoint character classes, no nested repetition.
 */
export interface SecretPattern {
  readonly name: string;
  /** Literals of which at least one must occur for the pattern to run. Empty: always runs. */
  readonly hints: readonly string[];
  readonly caseless?: boolean;
  readonly pattern: RegExp;
  /** Replacement; `$1`-style groups keep non-secret context (a header name, a scheme). */
  readonly replace: string;
}

const R = '[REDACTED]';

/** Names under which credentials are assigned (`api_key=`, `"Authorization":`, `password:`). */
const credentialKey = String.raw`(?:api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|secret[_-]?access[_-]?key|subscription[_-]?key|ocp-apim-subscription-key|access[_-]?token|refresh[_-]?token|id[_-]?token|auth[_-]?token|session[_-]?token|security[_-]?token|bearer[_-]?token|client[_-]?secret|secret|password|passwd|pwd|token|key|credentials?|authorization|proxy-authorization|cookie|set-cookie|signature|sig)`;

export const secretPatterns: readonly SecretPattern[] = [
  {
    name: 'private_key',
    hints: ['PRIVATE KEY'],
    pattern: /-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----[^-]*(?:-----END[A-Z ]{0,40}PRIVATE KEY-----)?/g,
    replace: R,
  },
  {
    name: 'jwt',
    hints: ['eyJ'],
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}(?:\.[A-Za-z0-9_-]*)?/g,
    replace: R,
  },
  {
    name: 'url_credentials',
    hints: ['://'],
    pattern: /\b([a-z][a-z0-9+.-]{0,20}:\/\/)[^\s/?#@'"<>]{1,256}@/gi,
    replace: `$1${R}@`,
  },
  {
    name: 'authorization_scheme',
    hints: ['bearer', 'basic', 'token ', 'apikey '],
    caseless: true,
    pattern:
      /\b(bearer|basic|token|apikey)(\s+)(?=[A-Za-z0-9._~+/=-]{8,})(?=[^\s]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]+/gi,
    replace: `$1$2${R}`,
  },
  {
    name: 'prefixed_api_key',
    hints: [
      'sk-',
      'sk_',
      'rk_',
      'pk_',
      'AIza',
      'ya29.',
      '1//',
      'gsk_',
      'xai-',
      'hf_',
      'pplx-',
      'r8_',
      'npm_',
      'gh',
      'github_pat_',
      'glpat-',
      'xox',
      'xapp-',
      'AKIA',
      'ASIA',
      'sess-',
      'key-',
      'nvapi-',
      'fw_',
      'csk-',
      'tgp_',
    ],
    pattern:
      /(?<![A-Za-z0-9])(?:sk-[A-Za-z0-9_*.-]{6,}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{8,}|AIza[0-9A-Za-z_-]{16,}|ya29\.[0-9A-Za-z_-]{10,}|1\/\/[0-9A-Za-z_-]{16,}|gsk_[A-Za-z0-9]{12,}|xai-[A-Za-z0-9]{12,}|hf_[A-Za-z0-9]{12,}|pplx-[A-Za-z0-9]{12,}|r8_[A-Za-z0-9]{12,}|npm_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|glpat-[A-Za-z0-9_-]{12,}|xox[abposr]-[A-Za-z0-9-]{8,}|xapp-[A-Za-z0-9-]{8,}|(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}|sess-[A-Za-z0-9]{16,}|key-[A-Za-z0-9]{20,}|nvapi-[A-Za-z0-9_-]{16,}|fw_[A-Za-z0-9]{16,}|csk-[A-Za-z0-9]{16,}|tgp_v1_[A-Za-z0-9_-]{16,})/g,
    replace: R,
  },
  {
    name: 'credential_assignment',
    hints: ['key', 'token', 'secret', 'passw', 'pwd', 'credential', 'auth', 'cookie', 'signature', 'sig='],
    caseless: true,
    // The value is not redacted when it is itself the next key (`key= "api-key": "..."`): that pair is redacted.
    pattern: new RegExp(
      String.raw`\b((?:x-)?${credentialKey}\\{0,3}["'\`]?\s{0,4}[:=]\s{0,4}\\{0,3}["'\`]?)` +
        String.raw`(?!\[REDACTED\]|\[EMAIL\]|(?:bearer|basic|token|apikey)\s|(?:x-)?${credentialKey}\\{0,3}["'\`]\s{0,4}[:=])` +
        String.raw`[^\s"'\`,;&}\])\\]{3,}`,
      'gi',
    ),
    replace: `$1${R}`,
  },
  {
    name: 'api_key_provided',
    hints: ['provided'],
    caseless: true,
    pattern: /\b(api key provided:?\s{0,4})[^\s"'`,;.]{3,}/gi,
    replace: `$1${R}`,
  },
  {
    name: 'email',
    hints: ['@'],
    pattern:
      /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}/g,
    replace: '[EMAIL]',
  },
  {
    name: 'aws_account',
    hints: ['arn:'],
    pattern: /\b(arn:aws[a-z-]{0,20}:[a-z0-9-]{0,40}:[a-z0-9-]{0,40}:)\d{12}/g,
    replace: `$1${R}`,
  },
  {
    name: 'prefixed_account_id',
    hints: ['org-', 'org_', 'user_', 'user-', 'proj_', 'acct_', 'team_', 'team-', 'ws_', 'cus_'],
    caseless: true,
    pattern: /(?<![A-Za-z0-9])(?:org|user|proj|acct|team|ws|cus)[-_][A-Za-z0-9]{6,}/gi,
    replace: R,
  },
  {
    name: 'path_account_id',
    hints: [
      'subscriptions/',
      'projects/',
      'organizations/',
      'accounts/',
      'tenants/',
      'team/',
      'teams/',
      'users/',
      'home/',
    ],
    caseless: true,
    pattern:
      /\b(subscriptions|projects|organizations|accounts|tenants|teams?|users|home)\/(?!REDACTED\b)[A-Za-z0-9._-]{2,128}/gi,
    replace: `$1/${R}`,
  },
  {
    name: 'named_account_id',
    hints: ['organization', 'project', 'account', 'team', 'tenant', 'workspace', 'subscription', 'consumer'],
    caseless: true,
    pattern:
      /\b((?:organization|organisation|project|account|team|tenant|workspace|subscription|consumer)(?:[ _-]?id)?(?:\s{0,4}[:=]\s{0,4}|\s{1,4})[('"`]?)(?!(?:is|has|was|the|and|for|with|that|this|does|not|of|on|in|to|or|may|can|limit|rate|usage|quota|level|tier|settings|billing|credits?|member|owner|admin|access|api|key|must|before|yet)\b)(?=[A-Za-z0-9_.:-]{4,}[)'"`\s.,;:]|[A-Za-z0-9_.:-]{4,}$)(?=[^\s)'"`]*[0-9_-])[A-Za-z0-9_.:-]{4,128}/gi,
    replace: `$1${R}`,
  },
  {
    // A run of 32 or more key characters mixing upper case, lower case and digits: an unprefixed key (Mistral,
    // Cohere, an AWS secret). Matched only at the start of a run (the look-behind), so each run is read once.
    name: 'high_entropy_token',
    hints: [],
    pattern:
      /(?<![A-Za-z0-9_+=-])(?=[A-Za-z0-9_+=-]{32,})(?=[A-Za-z0-9_+=-]*[A-Z])(?=[A-Za-z0-9_+=-]*[a-z])(?=[A-Za-z0-9_+=-]*[0-9])[A-Za-z0-9_+=-]{32,}/g,
    replace: R,
  },
];
