/**
 * The credential and account-identifier formats the sanitizer recognizes, found in one pass: every format is an
 * alternative of a single scan (`secretScan`), anchored on a prefix (`sk-`, `AIza`, `eyJ`, `-----BEGIN`, `://`),
 * a key word (`api key`, `subscription key`, `token`, `password`, `Authorization`) or the start of a long
 * high-entropy run. Each alternative has exactly one capturing group, the secret, which ends its match; what
 * precedes the group (a key word, a scheme, `arn:aws:...:`) is context and stays. Every alternative is linear:
 * bounded quantifiers or possessive-free ones over disjoint character classes, no nested repetition.
 */
interface SecretFormat {
  readonly name: string;
  readonly source: string;
  /** What the secret becomes: `[REDACTED]` unless said otherwise. */
  readonly replacement?: string;
  /**
   * Decides a candidate the expression alone cannot (is this run a request id, an identifier?). Returns the
   * secret's start (the match's group may start later, as an e-mail's does), or -1 when it is no secret.
   */
  readonly accept?: (text: string, start: number, end: number) => number;
  /**
   * The characters the secret goes on with: its match is bounded (a refused candidate is read again from the next
   * character, so an unbounded one could be read many times), the secret is not.
   */
  readonly extend?: RegExp;
}

export const redacted = '[REDACTED]';

/**
 * A case-insensitive source for a key word (`ci('key')` is `[kK][eE][yY]`). The scan is case-sensitive because
 * key prefixes are (`AKIA`, `AIza`), so key words spell their caselessness out; escapes (`\s`) are left alone.
 */
function ci(source: string): string {
  return source.replace(/\\.|[a-zA-Z]/g, (c) =>
    c.length === 2 ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`,
  );
}

/** Not preceded by a letter or digit: a key word or prefix starts here (`OPENAI_API_KEY` still counts). */
const wordStart = '(?<![A-Za-z0-9])';

/** Names whose value is a secret whatever it is (`password=hunter`, `pwd: 123456`). */
const passwordNames = ci(String.raw`(?:password|passwd|pwd|passphrase|secret|credentials?)`);

/**
 * Names whose value is a credential unless it is a plain word or a short number (`api_key: value length must`,
 * `refresh token: 401 Unauthorized`), in `name: value`, `name=value` and quoted (`"api-key": "..."`) form.
 */
const keyNames = ci(
  String.raw`(?:x-)?(?:ocp-apim-subscription-key|subscription[ _-]?key|api[ _-]?key|apikey|access[ _-]?key(?:[ _-]?id)?|secret[ _-]?(?:access[ _-]?)?key|account[ _-]?key|shared[ _-]?access[ _-]?key|private[ _-]?key|session[ _-]?key|(?:access|refresh|id|auth|session|security|bearer|api|oauth)[ _-]?token|(?:proxy-)?authorization)`,
);

const strongNames = `(?:${passwordNames}|${keyNames})`;

/** Names whose value is a credential only when it looks like one (`key: "service"` is Google's metadata). */
const weakNames = ci(String.raw`(?:token|key|signature|sig|session(?:id|_id|-id)?)`);

/** Between a name and its value: quotes (JSON escaped up to twice), a colon or equals sign, blanks. */
const assignment = String.raw`\\{0,3}["'\`]?\s{0,4}[:=]\s{0,4}\\{0,3}["'\`]?`;

/** Between a key word and a key in prose: `subscription key 0a1b...`, `token is "..."`, `key: (...)`. */
const nearby = String.raw`s?\\{0,3}["'\`]?\s{0,3}(?:[:=]|${ci('is')}(?=\s)|${ci('was')}(?=\s))?\s{0,3}\\{0,3}["'\`(\[<]?`;

/** Where an assigned value ends. */
const valueEnd = String.raw`[\s"'\`,;&}\])\\]`;

/** A plain word or a short number, then the end of the value: no credential (`token: expired`). */
const notPlain = String.raw`(?!(?:[A-Za-z][a-z]{0,23}[.:!?]?|[0-9]{1,8})(?!${valueEnd.replace('[', '[^')}))`;

/** A value that is itself another assignment's name or a scheme: that one is read on its own. */
const notAName = String.raw`(?!\[REDACTED\]|\[EMAIL\]|${ci('(?:bearer|basic|token|apikey)')}\s|(?:${strongNames}|${weakNames})\\{0,3}["'\`]\s{0,4}[:=])`;

/** The characters a key run is made of (hex, base64, base64url). */
const keyRun = '[A-Za-z0-9+/_-]';

const runCharacter = /[A-Za-z0-9+/=_-]/;
const hexOnly = /^[0-9a-fA-F]+$/;
const uuid = /^[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$/;
const hasDigit = /[0-9]/;
const hasLetter = /[A-Za-z]/;
/** A part of a model id, version or slug: a word, a number, a short tag (`4o`, `v1`). */
const identifierPart = /^(?:[a-z]+|[A-Z][a-z]+|[A-Z]+|[0-9]+|[a-z0-9]{1,3})$/;

/**
 * A run that reads as a key: hex of 16 or more characters with letters and digits (a UUID counts), or base64 of
 * 20 or more with letters and digits that is not an identifier made of words and numbers
 * (`claude-3-5-sonnet-20241022`, `gpt-4o-2024-08-06`, `max_tokens_to_sample`).
 */
export function looksLikeKey(run: string): boolean {
  const bare = run.replace(/=+$/, '');
  if (!hasDigit.test(bare) || !hasLetter.test(bare)) return false;
  if (bare.length >= 16 && (hexOnly.test(bare) || uuid.test(bare))) return true;
  if (bare.length < 20) return false;
  return !bare.split(/[-_/.+]/).every((part) => part === '' || identifierPart.test(part));
}

/** A value of eight or more characters with letters and digits that is not an identifier (`gpt-4o-mini`). */
function looksLikeShortKey(value: string): boolean {
  return (
    value.length >= 8 &&
    hasDigit.test(value) &&
    hasLetter.test(value) &&
    !value.split(/[-_/.+:]/).every((part) => part === '' || identifierPart.test(part))
  );
}

/** Request ids name a request, not an account: kept so a failure can be reported (docs/classification.md). */
const requestIdRun = /^req(?:uest)?[_-]/i;
const requestIdBefore =
  /(?:request|trace|correlation)[ _-]?id\\{0,3}["'`]?\s{0,4}[:=]?\s{0,4}\\{0,3}["'`]?$/i;

function isRequestId(text: string, start: number, end: number): boolean {
  return (
    requestIdRun.test(text.slice(start, Math.min(end, start + 8))) ||
    requestIdBefore.test(text.slice(Math.max(0, start - 24), start))
  );
}

const keyLike = (text: string, start: number, end: number): number =>
  looksLikeKey(text.slice(start, end)) && !isRequestId(text, start, end) ? start : -1;

const emailLocal = /[A-Za-z0-9._%+-]/;

export const secretFormats: readonly SecretFormat[] = [
  {
    name: 'private_key',
    source: '(-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----[^-]*(?:-----END[A-Z ]{0,40}PRIVATE KEY-----)?)',
  },
  {
    name: 'jwt',
    source: String.raw`(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}(?:\.[A-Za-z0-9_-]*)?)`,
  },
  {
    name: 'prefixed_api_key',
    source:
      wordStart +
      String.raw`(sk-[A-Za-z0-9_*.-]{6,}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{8,}|AIza[0-9A-Za-z_-]{16,}|ya29\.[0-9A-Za-z_-]{10,}|1\/\/[0-9A-Za-z_-]{16,}|gsk_[A-Za-z0-9]{12,}|xai-[A-Za-z0-9]{12,}|hf_[A-Za-z0-9]{12,}|pplx-[A-Za-z0-9]{12,}|r8_[A-Za-z0-9]{12,}|npm_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|glpat-[A-Za-z0-9_-]{12,}|xox[abposr]-[A-Za-z0-9-]{8,}|xapp-[A-Za-z0-9-]{8,}|(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}|sess-[A-Za-z0-9]{16,}|key-[A-Za-z0-9]{20,}|nvapi-[A-Za-z0-9_-]{16,}|fw_[A-Za-z0-9]{16,}|csk-[A-Za-z0-9]{16,}|tgp_v1_[A-Za-z0-9_-]{16,})`,
  },
  {
    // The user and password of `scheme://user:password@host`; the `@` stays.
    name: 'url_credentials',
    source: String.raw`(?<=[A-Za-z][A-Za-z0-9+.-]{0,20}):\/\/([^\s/?#@'"<>]{1,256}@)`,
    replacement: `${redacted}@`,
  },
  {
    name: 'authorization_scheme',
    source:
      wordStart +
      ci('(?:bearer|basic)') +
      String.raw`\s{1,4}((?=[A-Za-z0-9._~+/=-]*[0-9~+/=_])[A-Za-z0-9._~+/=-]{8,})`,
  },
  {
    // `Cookie: a=1; b=2` and `Set-Cookie: ...`: every pair of the header line.
    name: 'cookie',
    source:
      wordStart +
      ci('(?:set-)?cookie') +
      assignment +
      notAName +
      String.raw`([^\s"'\`;\\]{3,}(?:;\s?[^\s"'\`;\\]{1,})*)`,
  },
  {
    // The value is not redacted when it is itself the next name (`key= "api-key": "..."`): that pair is redacted.
    name: 'password_assignment',
    source: wordStart + passwordNames + assignment + notAName + `(${valueEnd.replace('[', '[^')}{3,})`,
  },
  {
    name: 'credential_assignment',
    source: wordStart + keyNames + assignment + notAName + notPlain + `(${valueEnd.replace('[', '[^')}{3,})`,
  },
  {
    // `token=abc123xyz`, `"key": "..."`: a weak name's value is redacted when it reads as a short key.
    name: 'weak_assignment',
    source:
      wordStart + weakNames + assignment + notAName + `([A-Za-z0-9]${valueEnd.replace('[', '[^')}{7,1023})`,
    accept: (text, start, end) => (looksLikeShortKey(text.slice(start, end)) ? start : -1),
    extend: /[^\s"'`,;&})\]\\]/,
  },
  {
    name: 'api_key_provided',
    source: wordStart + ci('api key provided') + String.raw`:?\s{0,4}([^\s"'\`,;.]{3,})`,
  },
  {
    // A key word followed, within a few characters, by a run that reads as a key (`invalid subscription key
    // 0a1b...`, `token: "..."`, `key=...`): keys identified by the words around them, not only by prefixes.
    name: 'keyword_key',
    source: wordStart + `(?:${strongNames}|${weakNames})` + nearby + `([A-Za-z0-9]${keyRun}{15,1023}={0,2})`,
    accept: (text, start, end) => keyLike(text, start, end),
    extend: runCharacter,
  },
  {
    // The local part is read backwards from the `@` by `accept`, so the scan starts only at an `@`.
    name: 'email',
    source: String.raw`(?<=[A-Za-z0-9._%+-])(@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24})(?![A-Za-z0-9-])`,
    replacement: '[EMAIL]',
    accept: (text, start) => {
      let from = start;
      while (from > 0 && start - from < 64 && emailLocal.test(text[from - 1]!)) from--;
      return from > 0 && emailLocal.test(text[from - 1]!) ? -1 : from;
    },
  },
  {
    name: 'aws_account',
    source: String.raw`(?<![A-Za-z0-9])arn:aws[a-z-]{0,20}:[a-z0-9-]{0,40}:[a-z0-9-]{0,40}:(\d{12})`,
  },
  {
    // `org-AbC123`, `user_2x9...`: the value has a digit or mixes cases; a word (`user-friendly`,
    // `USER_PROJECT_DENIED`) is no identifier.
    name: 'prefixed_account_id',
    source:
      wordStart +
      ci('(?:org|user|proj|acct|team|ws|cus)[-_]') +
      '((?:(?=[A-Za-z0-9]*[0-9])|(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[a-z]))[A-Za-z0-9]{6,})',
  },
  {
    name: 'path_account_id',
    source:
      wordStart +
      ci('(?:subscriptions|projects|organizations|accounts|tenants|teams?|users|home)') +
      String.raw`\/(?!REDACTED\b)([A-Za-z0-9._-]{2,128})`,
  },
  {
    name: 'named_account_id',
    source:
      wordStart +
      ci('(?:organization|organisation|project|account|team|tenant|workspace|subscription|consumer)') +
      ci('(?:[ _-]?id)?') +
      String.raw`(?:\s{0,4}[:=]\s{0,4}|\s{1,4})[('"\`]?` +
      `(?!${ci('(?:is|has|was|the|and|for|with|that|this|does|not|of|on|in|to|or|may|can|limit|rate|usage|quota|level|tier|settings|billing|credits?|member|owner|admin|access|api|key|must|before|yet)')}\\b|${ci('https?:')})` +
      String.raw`(?=[A-Za-z0-9_.:-]{4,}[)'"\`\s.,;:]|[A-Za-z0-9_.:-]{4,}$)(?=[^\s)'"\`]*[0-9_-])([A-Za-z0-9_.:-]{4,128})`,
  },
  {
    // A run of 32 or more key characters mixing upper case, lower case and digits: an unprefixed key (Mistral,
    // Cohere, an AWS secret). Matched only at the start of a run (the look-behind), so each run is read once; an
    // equals sign ends a run (`NAME=value` is a name and a value, base64 padding ends the value).
    // A request id (`req_...`, after `request_id`) is not one.
    name: 'high_entropy_token',
    source: String.raw`(?<![A-Za-z0-9_+-])((?=[A-Za-z0-9_+-]*[A-Z])(?=[A-Za-z0-9_+-]*[a-z])(?=[A-Za-z0-9_+-]*[0-9])[A-Za-z0-9_+-]{32,}={0,2})`,
    accept: (text, start, end) => (isRequestId(text, start, end) ? -1 : start),
  },
];

/** Every format as one alternative of one expression; group i + 1 is format i's secret. */
const secretScan = new RegExp(secretFormats.map((f) => `(?:${f.source})`).join('|'), 'g');

/** One secret found: text[start, end) is shown as `replacement`. */
export interface SecretSpan {
  readonly start: number;
  readonly end: number;
  readonly replacement: string;
}

/**
 * The secrets of `text`, in order and disjoint, found in one pass over it. Where two formats match at the same
 * place the earlier in `secretFormats` wins; a candidate a format's `accept` refuses lets the scan go on from the
 * next character.
 */
export function findSecrets(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  const scan = secretScan;
  scan.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = scan.exec(text)) !== null) {
    let end = m.index + m[0].length;
    let i = 1;
    while (m[i] === undefined) i++;
    const format = secretFormats[i - 1]!;
    let start = end - m[i]!.length;
    if (format.accept !== undefined) start = format.accept(text, start, end);
    if (start < 0) {
      // Refused: a high-entropy run is skipped whole, anything else resumes at the next character.
      scan.lastIndex = format.name === 'high_entropy_token' ? end : m.index + 1;
      continue;
    }
    if (format.extend !== undefined) {
      while (end < text.length && format.extend.test(text[end]!)) end++;
      scan.lastIndex = end;
    }
    const previous = spans[spans.length - 1];
    if (previous !== undefined && start < previous.end) start = previous.end;
    spans.push({ start, end, replacement: format.replacement ?? redacted });
  }
  return spans;
}
