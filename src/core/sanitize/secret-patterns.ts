/**
 * The credential and account-identifier formats the sanitizer recognizes, found in one pass (`findSecrets`): each
 * format begins with a prefix (`sk-`, `AIza`, `eyJ`, `-----BEGIN`, `://`), a key word (`api key`, `subscription
 * key`, `token`, `password`, `Authorization`) or the start of a long high-entropy run, and the pass tries a format
 * only where the text begins so. Each format's expression has exactly one capturing group, the secret, which ends
 * its match; what precedes the group (a key word, a scheme, `arn:aws:...:`) is context and stays. Every expression
 * is linear: bounded quantifiers or possessive-free ones over disjoint character classes, no nested repetition.
 * docs/classification.md (Sanitization) says what is redacted and what is kept on purpose (request ids).
 */

/**
 * `String.prototype.charCodeAt`, called on the text explicitly: texts arrive in many representations (flat, sliced,
 * concatenated; one or two bytes a character), and `text.charCodeAt` looked up on five or more of them becomes a
 * generic lookup that V8 no longer inlines, tripling the cost of a scan. A call through the one function is inlined
 * whatever the representation.
 */
// eslint-disable-next-line @typescript-eslint/unbound-method -- always called with its receiver: charCodeAt.call(text, i)
const charCodeAt = String.prototype.charCodeAt;

interface SecretFormat {
  readonly name: string;
  /**
   * How its match begins, lower-cased: the scan tries the format only where the text begins so (its first two
   * characters, or its one character). The high-entropy run has none: the scan tries it at the start of a long run.
   */
  readonly starts: readonly string[];
  /**
   * The format begins at the last character of a key word outside ASCII (`cjkKeyWordList`): the scan stops there
   * (`cjkKeyWordEnds`) and tries only these formats.
   */
  readonly afterWords?: true;
  /**
   * For a start that is one punctuation character (`:`, `@`): what the scan looks for instead, as a
   * regular-expression source, so that it does not stop at every colon of a JSON body.
   */
  readonly trigger?: string;
  /**
   * A punctuation start counts only where no letter or digit precedes it (the `-p` of `mysql -pS3cret`, not of
   * `gemini-2.5-pro`): the scan checks the character before, as it does for a word start.
   */
  readonly notInWord?: true;
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
  /**
   * Where the secret `accept` just took ends, when that is not the match's end (a secret in JSON escapes: the match
   * may stop inside the key or run on past it).
   */
  readonly acceptedEnd?: () => number;
}

const redacted = '[REDACTED]';
const email = '[EMAIL]';

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
/** The same before a punctuation start's trigger (`SecretFormat.notInWord`). */
const notInWordSource = wordStart;

/** Names whose value is a secret whatever it is (`password=hunter`, `pwd: 123456`, psql's `PGPASSWORD=`). */
const passwordNames = ci(String.raw`(?:(?:pg)?password|passwd|pwd|passphrase|secret|credentials?)`);

/**
 * Names whose value is a credential unless it is a plain word or a short number (`api_key: value length must`,
 * `refresh token: 401 Unauthorized`), in `name: value`, `name=value` and quoted (`"api-key": "..."`) form.
 */
const keyNames = ci(
  String.raw`(?:x-)?(?:ocp-apim-subscription-key|subscription[ _-]?key|api[ _-]?key|apikey|access[ _-]?key(?:[ _-]?id)?|secret[ _-]?(?:access[ _-]?)?key|account[ _-]?key|shared[ _-]?access[ _-]?key|private[ _-]?key|session[ _-]?key|(?:access|refresh|id|auth|session|security|bearer|api|oauth)[ _-]?token|(?:proxy-)?authorization)`,
);

const strongNames = `(?:${passwordNames}|${keyNames})`;

/** Key words in Chinese, Japanese and Korean: key, secret key, token, password, credential, access key, secret. */
const cjkKeyWordList = [
  ...[
    '密钥',
    '秘钥',
    '密鑰',
    '金鑰',
    '金钥',
    '令牌',
    '密码',
    '密碼',
    '口令',
    '凭证',
    '凭据',
    '憑證',
    '憑據',
    '訪問鍵',
  ],
  ...['キー', 'トークン', 'パスワード', 'シークレット', '秘密鍵'],
  ...['토큰', '키', '비밀번호', '암호', '시크릿'],
];
const cjkKeyWords = cjkKeyWordList.join('|');

/**
 * Names whose value is a credential only when it looks like one (`key: "service"` is Google's metadata; `auth` is a
 * Docker registry's or npm's base64 `user:password`, `auth: "required"` stays).
 */
const weakNames = ci(String.raw`(?:token|key|signature|sig|auth|session(?:id|_id|-id)?)`);

/**
 * Between a name and its value: quotes (JSON escaped up to twice), a colon or equals sign (or either URL-encoded, as
 * a query inside another URL's query carries it: `next=%2Fapi%3Ftoken%3D...`), blanks.
 */
const assignment = String.raw`\\{0,3}["'\`]?\s{0,4}(?:[:=\uff1a]|%3[AaDd])\s{0,4}\\{0,3}["'\`]?`;

/** Between a key word and a key in prose: `subscription key 0a1b...`, `token is "..."`, `key: (...)`, `<Key>...`. */
const nearby = String.raw`s?\\{0,3}["'\`>]?\s{0,3}(?:[:=\uff1a]|${ci('is')}(?=\s)|${ci('was')}(?=\s))?\s{0,3}\\{0,3}["'\`(\[<]?`;

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
 * (`claude-3-5-sonnet-20241022`, `gpt-4o-2024-08-06`, `max_tokens_to_sample`), or 20 or more letters whose case
 * changes as random text's does (a key that happened to draw no digit; `AuthenticationError` is words).
 */
function looksLikeKey(run: string): boolean {
  const bare = run.replace(/=+$/, '');
  if (!hasDigit.test(bare)) return bare.length >= 20 && isRandomLetters(bare);
  if (!hasLetter.test(bare)) return false;
  if (bare.length >= 16 && (hexOnly.test(bare) || uuid.test(bare))) return true;
  if (bare.length < 20) return false;
  return !bare.split(/[-_/.+]/).every((part) => part === '' || identifierPart.test(part));
}

/**
 * Letters only, in both cases, changing case at least once every three letters: random base64 without a digit
 * (about one key in a thousand draws none) reads so; words, CamelCase and constants do not.
 */
function isRandomLetters(run: string): boolean {
  return lettersOnly.test(run) && changesClassOften(run, 3);
}
const lettersOnly = /^[A-Za-z]+$/;

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

/** Upper case, lower case, digit or other: the class of a character code, for `readsAsRandom`. */
const characterClass = (c: number) =>
  c >= 65 && c <= 90 ? 1 : c >= 97 && c <= 122 ? 2 : c >= 48 && c <= 57 ? 3 : 0;

/**
 * Whether a base64 run reads as random rather than as words: upper and lower case, a digit or `+`, a change of
 * class (upper, lower, digit) at least once every four letters and digits, and not only words and numbers. Random
 * base64 changes class about every other character; CamelCase words about every six. A part between slashes that
 * is a plain word (`folders`, `Users`) makes it a path.
 */
function readsAsRandom(run: string): boolean {
  return (
    changesClassOften(run) &&
    /[A-Z]/.test(run) &&
    /[a-z]/.test(run) &&
    (hasDigit.test(run) || run.includes('+')) &&
    !run.split(/[-_/.+=]/).every((part) => part === '' || identifierPart.test(part)) &&
    !run.split('/').some((part) => plainWord.test(part))
  );
}

/** Whether the letters and digits of `run` change class (upper, lower, digit) at least once every `every`. */
function changesClassOften(run: string, every = 4): boolean {
  let changes = 0;
  let letters = 0;
  let previous = 0;
  for (let i = 0; i < run.length; i++) {
    const k = characterClass(charCodeAt.call(run, i));
    if (k === 0) continue;
    letters++;
    if (previous !== 0 && k !== previous) changes++;
    previous = k;
  }
  return letters > 0 && changes * every >= letters;
}

/** A word of four letters or more between slashes: a path (`/var/folders/...`), not a key. */
const plainWord = /^(?:[a-z]{4,}|[A-Z][a-z]{3,})$/;

/** A character an opaque token has and a word does not. */
const tokenSign = /[0-9~+/=_]/;

const keyLike = (text: string, start: number, end: number): number =>
  looksLikeKey(text.slice(start, end)) && !isRequestId(text, start, end) ? start : -1;

const emailLocal = /[A-Za-z0-9._%+-]/;
/** A character of the password in `user:password@host` (what a URL's user information may hold, unescaped). */
const passwordCharacter = /[^\s:/?#@'"<>]/;

const base64Value = /^[A-Za-z0-9+/]+={0,2}$/;
const printableWithColon = /^[\x20-\x39\x3b-\x7e][\x20-\x7e]*:[\x20-\x7e]*$/;

/**
 * Whether `value` is base64 of `user:password` (printable text with a colon after its first character): the value
 * of `Basic`, whatever its letters (`dXNlcjpwYXNz` has no digit or sign). `Basic authentication` is no base64 of a
 * length divisible by four, and decodes to no such text when it is.
 */
function isBasicCredential(value: string): boolean {
  if (value.length % 4 !== 0 || !base64Value.test(value)) return false;
  try {
    return printableWithColon.test(atob(value));
  } catch {
    return false;
  }
}

/** A JSON escape of a printable ASCII character (`\u0041`, escaped up to three times over). */
const escapedCharacter = /\\{1,3}u00([2-7][0-9a-fA-F])/y;
const keyCharacter = /[A-Za-z0-9_+/-]/;

/**
 * Where the secret in a run of JSON escapes (`\u0073\u006b\u002d...`) begins, or -1: the run and the 48
 * characters before it are decoded (the key word before the run counts: `"api_key":"\u0041..."`) and read by
 * `findSecrets` like any text. A secret found there that reaches the run is redacted from its first character to
 * its end and on over the key characters that follow, escaped or not (`escapedKeyRun`: a key longer than one match
 * included), never further: an escaped quote, blank or `&` after the key is the message, not the key. Escaped words
 * (`\u003cbody\u003e`) and escaped URLs without a key stay. An escaped backslash decodes to a blank, so the decoded
 * text holds no escape to decode again.
 */
function escapedSecretStart(text: string, start: number, end: number): number {
  // A run refused once is refused again from any escape inside it (`\u0041a\u0042a...`): not decoded again.
  if (text === refusedEscapes.text && start > refusedEscapes.start && start < refusedEscapes.end) return -1;
  // A key accepted once is already redacted to its end: an escape inside it adds nothing. Deciding each again (a
  // window decoded and read per escape, each span then reaching a little further) made a long run cost about a
  // hundred times its length.
  if (text === acceptedEscapes.text && start > acceptedEscapes.start && start < acceptedEscapes.end)
    return -1;
  let from = start;
  while (from > 0 && start - from < 64 && keyCharacter.test(text[from - 1]!)) from--;
  // Never from the middle of an escape (a run longer than one match goes on from an escape's last characters):
  // `u0041a` read as text beside the decoded run looked like a key, and ordinary escaped text was redacted.
  from = outsideEscape(text, from);
  let decoded = '';
  const rawAt: number[] = [];
  for (let i = outsideEscape(text, Math.max(0, from - 48)); i < end;) {
    escapedCharacter.lastIndex = i;
    const m = text.charCodeAt(i) === 92 ? escapedCharacter.exec(text) : null;
    if (m === null) {
      decoded += text[i];
      rawAt.push(i++);
      continue;
    }
    const code = parseInt(m[1]!, 16);
    decoded += code === 92 ? ' ' : String.fromCharCode(code);
    rawAt.push(i);
    i += m[0].length;
  }
  for (const span of findSecrets(decoded)) {
    if (rawAt[span.end - 1]! < from) continue;
    // The secret's last unit (an escape or a character), then the key characters that go on after the window.
    const last = rawAt[span.end - 1]!;
    escapedCharacter.lastIndex = last;
    const unit = text.charCodeAt(last) === 92 ? escapedCharacter.exec(text) : null;
    escapedKeyRun.lastIndex = last + (unit === null ? 1 : unit[0].length);
    escapedKeyRun.test(text);
    if (escapedKeyRun.lastIndex <= start) continue;
    // `findSecrets(decoded)` has just cleared this state: it is written after.
    acceptedEscapes.text = text;
    acceptedEscapes.start = start;
    acceptedEscapes.end = escapedKeyRun.lastIndex;
    return Math.max(from, rawAt[span.start]!);
  }
  refusedEscapes.text = text;
  refusedEscapes.start = start;
  refusedEscapes.end = end;
  return -1;
}
/**
 * Where a high-entropy token begins, or -1. A token read from inside a JSON escape (`\u0022Rate_limit_...` from its
 * `u0022`) begins after the escape, and only if what is left is still one: the escape's hex digits are no part of
 * the word after it, and lent a message the digit a token needs.
 */
function highEntropyStart(text: string, start: number, end: number): number {
  const from = outsideEscape(text, start);
  if (from !== start && !highEntropyToken.test(text.slice(from, end))) return -1;
  return isRequestId(text, from, end) ? -1 : from;
}
const highEntropyToken = /^(?=.*[A-Z])(?=.*[a-z])(?=.*[0-9])[A-Za-z0-9_+-]{32,}={0,2}$/;

/** `at`, or the end of the escape it falls inside (`\u0041` read from its middle is no text of its own). */
function outsideEscape(text: string, at: number): number {
  for (let k = at - 1; k >= 0 && k >= at - 8; k--) {
    if (text.charCodeAt(k) !== 92) continue;
    escapedCharacter.lastIndex = k;
    const m = escapedCharacter.exec(text);
    if (m !== null && k + m[0].length > at) return k + m[0].length;
  }
  return at;
}

/** The last run of escapes refused in the current `findSecrets` call (which clears it first: no state between calls). */
const refusedEscapes = { text: '', start: -1, end: -1 };
/** The last key in escapes accepted in the current `findSecrets` call, to the key's end (`escapedKeyRun`); cleared alike. */
const acceptedEscapes = { text: '', start: -1, end: -1 };

/**
 * Key characters (`[A-Za-z0-9_+/=.-]`), as they are or as JSON escapes, unbounded: how far a secret found in escapes
 * goes on, which a match (at most 256 units) may fall short of. An escaped quote, blank, comma or `&` ends it.
 */
const escapedKeyRun =
  /(?:\\{1,3}u00(?:2[bdefBDEF]|3[0-9dD]|4[1-9a-fA-F]|5[0-9aAfF]|6[1-9a-fA-F]|7[0-9aA])|[A-Za-z0-9_+/=.-])*/y;

/** The last characters of the key words outside ASCII (`cjkKeyWordList`): where the scan stops for them. */
const cjkKeyWordEnds = new Set(cjkKeyWordList.map((w) => w.charCodeAt(w.length - 1)));

/**
 * A run of letters only that reads as random (case changing at least every three letters), not as words, and is no
 * request id (`Request ID: cImUfOyyTayVXBTz...` is one in the corpus).
 */
const randomLetters = (text: string, start: number, end: number): number => {
  const run = text.slice(start, end).replace(/=+$/, '');
  return isRandomLetters(run) && !camelCaseWords.test(run) && !isRequestId(text, start, end) ? start : -1;
};

/**
 * The first segment of a Discord bot token: the account's numeric id (17 to 20 digits) in base64, whose
 * characters come in fours of fixed classes (a digit's byte is 0x3X): `MTA4NzY1...`. The scan stops at its first
 * three characters (a first digit 1-9, a second 0-9).
 */
const discordIdStarts = ['mt', 'mj', 'mz', 'nd', 'nt', 'nj', 'nz', 'od', 'ot'].flatMap((pair) =>
  [...'aeimquycgk'].map((third) => pair + third),
);

/** The first letters of the API-key and token names (`keyNames`): where a key word's value can begin. */
const keyNameStarts = [
  'x-',
  'ocp',
  'subscription',
  'api',
  'access',
  'secret',
  'account',
  'shared',
  'private',
  'session',
  'refresh',
  'id',
  'auth',
  'security',
  'bearer',
  'oauth',
  'proxy',
];

/** An HTTP Digest parameter's value (quoted, JSON-escaped or not, or a token), a parameter, and what parts two. */
const digestValue = String.raw`(?:\\{0,3}"[^"\r\n\\]{0,256}\\{0,3}"|[^\s",;\\]{1,256})`;
const digestParameter = String.raw`[A-Za-z][A-Za-z0-9_-]{0,20}\s{0,3}=\s{0,3}` + digestValue;
const digestSeparator = String.raw`\s{0,3},\s{0,3}`;

export const secretFormats: readonly SecretFormat[] = [
  {
    name: 'private_key',
    starts: ['-----begin'],
    source: '(-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----[^-]*(?:-----END[A-Z ]{0,40}PRIVATE KEY-----)?)',
  },
  {
    name: 'jwt',
    starts: ['eyj'],
    source: String.raw`(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}(?:\.[A-Za-z0-9_-]*)?)`,
  },
  {
    // `MTA4NzY1NDMyMTA5ODc2NTQzMg.GhXyZq.AbCd...`: base64 of a numeric id, a timestamp, an HMAC.
    name: 'discord_bot_token',
    starts: discordIdStarts,
    source:
      wordStart +
      String.raw`((?:[MNO][DTjz][AEIMQUYcgk][w-z0-5]){4,6}(?:[MNO][A-Za-z0-9]{1,3})?={0,2}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{20,})`,
  },
  {
    // `Authorization: Digest username="bob", realm=..., response="6629fae4...", cnonce="0a4f113b"`: the parameter
    // list, from its first parameter to the last after `response` or `cnonce` (the hash of the password, and what
    // it was salted with). The span starts where the match does: a secret found later inside the list is inside the
    // span, never left out because it was found after a span that starts beyond it.
    name: 'digest_response',
    starts: ['digest'],
    source:
      wordStart +
      ci('digest') +
      // A lazy skip along the line (at most 600 characters, tried once per `Digest`), not a repetition of
      // parameters: a list whose value never closes must not be read again once per parameter.
      String.raw`\s{1,4}([^\r\n]{0,600}?(?<=[\s,"])` +
      `${ci('(?:response|cnonce)')}\\s{0,3}=\\s{0,3}${digestValue}(?:${digestSeparator}${digestParameter}){0,12})`,
  },
  {
    // `curl -u user:password`, `-uuser:password`, `--user user:password`, `--proxy-user=user:password`: the pair
    // (an API key is often the user with an empty password: `-u sk_test_...:`). A `uid:gid` (`docker run -u
    // 1000:1000`) and a URL (`pip install -U https://...`) are not one.
    name: 'cli_user_option',
    starts: ['-u', '-proxy-user'],
    notInWord: true,
    source:
      String.raw`(?:(?<![^\s"'\`])-[uU]\s{0,3}|(?<=(?<![^\s"'\`])-)-(?:proxy-)?user(?:\s{1,3}|=))["']?` +
      String.raw`(?![0-9]{1,10}:[0-9]{1,10}(?![^\s"'\`])|[A-Za-z][A-Za-z0-9+.-]{0,20}:\/\/)` +
      String.raw`([^\s"'\`:]{1,64}:[^\s"'\`]{0,128})`,
  },
  {
    // `mysql -u app -pS3cret`: the password glued to `-p`, on a MySQL or MariaDB client's command line only
    // (elsewhere `-p` is a port, a profile or a path).
    name: 'mysql_password_option',
    starts: ['-p'],
    notInWord: true,
    // The value is checked first: the look-behind (at most 120 characters back) runs only for `-p` with a value.
    source: String.raw`(?=-p[^\s"'\`]{2})(?<=(?<![A-Za-z0-9_-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mariadb|mariadb-dump)(?:[ \t][^\n|;&]{0,120})?[ \t])-p([^\s"'\`]{2,128})`,
  },
  {
    // `--password s3cret`, `--db-password s3cret` (the `=` form is an assignment): any value but a plain word or
    // a short number (`--password is required`), or another option.
    name: 'password_option',
    starts: ['password'],
    source:
      String.raw`(?<=(?<![A-Za-z0-9])--[a-z0-9-]{0,30})` +
      ci('password') +
      String.raw`\s{1,3}["']?` +
      notAName +
      notPlain +
      String.raw`(?!-)([^\s"'\`]{3,128})`,
  },
  {
    // A key written as JSON escapes (`"\u0073\u006b\u002d..."`): read decoded (`escapedSecretStart`).
    name: 'escaped_key',
    starts: ['\\u00'],
    // Never from inside a run of escapes (each run is read from its first escape), at most 256 characters.
    source: String.raw`(?<!\\{1,3}u00[2-7][0-9a-fA-F]\\{0,2})((?:\\{1,3}u00[2-7][0-9a-fA-F]|[A-Za-z0-9_+/=.-]){8,256})`,
    accept: escapedSecretStart,
    acceptedEnd: () => acceptedEscapes.end,
  },
  {
    name: 'prefixed_api_key',
    starts: [
      'sk-',
      'sk_',
      'rk_',
      'pk_',
      'aiza',
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
      'dapi',
      'nrak-',
      'akia',
      'asia',
      'agpa',
      'aida',
      'aroa',
      'anpa',
      'anva',
      'aipa',
      'sess-',
      'key-',
      'nvapi-',
      'fw_',
      'csk-',
      'tgp_',
      'whsec_',
      'gocspx-',
      'dop_v1_',
      'doo_v1_',
      'dor_v1_',
      'sg.',
      'shpat_',
      'shpss_',
      'shpca_',
      'shppa_',
    ],
    source:
      wordStart +
      String.raw`(sk-[A-Za-z0-9_*.-]{6,}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{8,}|AIza[0-9A-Za-z_-]{16,}|ya29\.[0-9A-Za-z_-]{10,}|1\/\/[0-9A-Za-z_-]{16,}|gsk_[A-Za-z0-9]{12,}|xai-[A-Za-z0-9]{12,}|hf_[A-Za-z0-9]{12,}|pplx-[A-Za-z0-9]{12,}|r8_[A-Za-z0-9]{12,}|npm_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|glpat-[A-Za-z0-9_-]{12,}|xox[abposre]-[A-Za-z0-9-]{8,}|dapi[a-f0-9]{32}(?:-[0-9])?|NRAK-[A-Z0-9]{27}|xapp-[A-Za-z0-9-]{8,}|(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}(?:[:=,;\s"']{1,3}[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+]))?|sess-[A-Za-z0-9]{16,}|key-[A-Za-z0-9]{20,}|nvapi-[A-Za-z0-9_-]{16,}|fw_[A-Za-z0-9]{16,}|csk-[A-Za-z0-9]{16,}|tgp_v1_[A-Za-z0-9_-]{16,}|whsec_[A-Za-z0-9+/=]{16,}|GOCSPX-[A-Za-z0-9_-]{16,}|do[opr]_v1_[a-f0-9]{32,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32})`,
  },
  {
    // The tokens of services an agent's tools and environment carry (tracing, search, vector stores, registries,
    // secret stores, hosting): prefixed, but often lower-case or hex, which the long-run formats do not take.
    name: 'prefixed_service_token',
    starts: [
      'lsv2_',
      'hvs.',
      'hvb.',
      'hvr.',
      'sntryu_',
      'sntrys_',
      'ntn_',
      'secret_',
      'sbp_',
      'sb_secret_',
      'age-secret-key-1',
      'sk_',
      'jina_',
      'bsa',
      'tvly-',
      'pcsk_',
      'dckr_pat_',
      'pypi-age',
      'lin_api_',
      'lin_oauth_',
      'pmak-',
      'figd_',
      'nfp_',
      'pscale_',
      'atatt',
      'glsa_',
      'glc_',
      'dp.',
      'rnd_',
      'fo1_',
      'ops_eyj',
    ],
    // Where a prefix could begin an identifier (`secret_`, `jina_`, `rnd_`), the rest may not hold `_`, and is long.
    source:
      wordStart +
      String.raw`(lsv2_(?:pt|sk)_[A-Za-z0-9_]{16,}|hv[sbr]\.[A-Za-z0-9_-]{20,}|sntry[us]_[A-Za-z0-9_+/=]{16,}|ntn_[A-Za-z0-9]{16,}|secret_[A-Za-z0-9]{40,}|sbp_[a-f0-9]{32,}|sb_secret_[A-Za-z0-9_-]{16,}|AGE-SECRET-KEY-1[0-9A-Z]{40,}|sk_[a-f0-9]{32,}|jina_[A-Za-z0-9]{32,}|BSA[A-Za-z0-9_-]{24,}|tvly-(?:dev-|prod-)?[A-Za-z0-9]{16,}|pcsk_[A-Za-z0-9_]{16,}|dckr_pat_[A-Za-z0-9_-]{16,}|pypi-AgE[A-Za-z0-9_-]{32,}|lin_(?:api|oauth)_[A-Za-z0-9]{16,}|PMAK-[A-Za-z0-9-]{20,}|figd_[A-Za-z0-9_-]{16,}|nfp_[A-Za-z0-9]{16,}|pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{16,}|ATATT[A-Za-z0-9_=-]{20,}|glsa_[A-Za-z0-9_]{24,}|glc_[A-Za-z0-9+/=]{24,}|dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{16,}|rnd_[A-Za-z0-9]{20,}|fo1_[A-Za-z0-9_-]{16,}|ops_eyJ[A-Za-z0-9_-]{30,})`,
  },
  {
    // A Slack incoming-webhook URL is its own credential: the path after the host goes.
    name: 'slack_webhook',
    starts: ['hooks.slack.com/'],
    source: String.raw`hooks\.slack\.com\/(?:services|workflows|triggers)\/([A-Za-z0-9/_-]{16,})`,
  },
  {
    // The user and password of `scheme://user:password@host`; the `@` stays.
    name: 'url_credentials',
    starts: [':'],
    trigger: ':\\/\\/',
    source: String.raw`(?<=[A-Za-z][A-Za-z0-9+.-]{0,20}):\/\/([^\s/?#@'"<>]{1,256}@)`,
    replacement: `${redacted}@`,
  },
  {
    // A query inside another URL's query (`?next=%2Fapi%3Ftoken%3D...`): the name follows an encoded `?` or `&`,
    // where the word scan does not stop (a letter precedes it), and its value reads as a key.
    name: 'encoded_query_parameter',
    starts: ['%3', '%2'],
    trigger: '%(?:3[Ff]|26)',
    source: String.raw`%(?:3[Ff]|26)(?:${strongNames}|${weakNames})(?:%3[Dd]|=)([A-Za-z0-9._~+/-]{8,256})`,
    accept: (text, start, end) => (looksLikeShortKey(text.slice(start, end)) ? start : -1),
  },
  {
    name: 'authorization_scheme',
    starts: ['bearer', 'basic', 'apikey'],
    source: wordStart + ci('(?:bearer|basic|apikey)') + String.raw`\s{1,4}([A-Za-z0-9._~+/=-]{8,})`,
    // A digit or a sign (`Bearer token` and `Basic authentication` are words), letters that read as a key, or
    // base64 of `user:password` (`Basic dXNlcjpwYXNz`).
    accept: (text, start, end) => {
      const value = text.slice(start, end);
      return tokenSign.test(value) || looksLikeKey(value) || isBasicCredential(value) ? start : -1;
    },
  },
  {
    // `Cookie: a=1; b=2` and `Set-Cookie: ...`: every pair of the header line.
    name: 'cookie',
    starts: ['cookie', 'set-cookie'],
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
    starts: ['password', 'pgpassword', 'passwd', 'pwd', 'passphrase', 'secret', 'credential'],
    // A quoted value is taken whole, blanks and all, up to its closing quote (`password: "two words"`).
    source:
      wordStart +
      passwordNames +
      assignment +
      notAName +
      String.raw`((?<=")[^"\\\r\n]{3,128}(?=\\{0,3}")|(?<=')[^'\\\r\n]{3,128}(?=')|` +
      `${valueEnd.replace('[', '[^')}{3,})`,
  },
  {
    // `the password is s3cr3t!`: any value but a plain word or a short number (`password is incorrect`).
    name: 'password_prose',
    starts: ['password', 'passwd', 'passphrase'],
    source:
      wordStart +
      ci('(?:password|passwd|passphrase)') +
      String.raw`\s{1,3}${ci('(?:is|was)')}\s{1,3}["'\`]?` +
      notAName +
      notPlain +
      String.raw`([^\s"'\`,;]{3,128})`,
  },
  {
    name: 'credential_assignment',
    starts: keyNameStarts,
    source: wordStart + keyNames + assignment + notAName + notPlain + `(${valueEnd.replace('[', '[^')}{3,})`,
  },
  {
    // `token=abc123xyz`, `"key": "..."`: a weak name's value is redacted when it reads as a short key.
    name: 'weak_assignment',
    starts: ['token', 'key', 'signature', 'sig', 'auth', 'session'],
    source:
      wordStart +
      weakNames +
      assignment +
      notAName +
      // No `=` or `:` inside the value (base64 padding ends it): `key=key=key=...` is read once per `=`, not
      // once per key word and value length.
      `([A-Za-z0-9]${valueEnd.replace('[', '[^=:')}{7,127}={0,2})`,
    accept: (text, start, end) => (looksLikeShortKey(text.slice(start, end)) ? start : -1),
    extend: /[^\s"'`,;&})\]\\=:]/,
  },
  {
    name: 'api_key_provided',
    starts: ['api'],
    source: wordStart + ci('api key provided') + String.raw`:?\s{0,4}([^\s"'\`,;.]{3,})`,
  },
  {
    // A key word followed, within a few characters, by a run that reads as a key (`invalid subscription key
    // 0a1b...`, `token: "..."`, `key=...`): keys identified by the words around them, not only by prefixes.
    name: 'keyword_key',
    starts: [
      ...keyNameStarts,
      'password',
      'pgpassword',
      'passwd',
      'pwd',
      'passphrase',
      'credential',
      'token',
      'key',
      'signature',
      'sig',
    ],
    // A base64 key may begin with `+` or `/` (an AWS secret access key does one time in sixteen).
    source:
      wordStart +
      `(?:${strongNames}|${weakNames})` +
      nearby +
      // `+` or `/` only after a blank, quote or sign: `session/ses_...` is a URL path, not a key.
      String.raw`((?:[A-Za-z0-9]|(?<=[\s"'\`>:=])[+/])${keyRun}{15,127}={0,2})`,
    accept: (text, start, end) => keyLike(text, start, end),
    extend: runCharacter,
  },
  {
    // The local part is read backwards from the `@` by `accept`, so the scan starts only at an `@`.
    name: 'email',
    starts: ['@'],
    trigger: '(?<=[A-Za-z0-9._%+-])@',
    source: String.raw`(?<=[A-Za-z0-9._%+-])(@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24})(?![A-Za-z0-9-])`,
    replacement: email,
    accept: (text, start) => {
      let from = start;
      while (from > 0 && start - from < 64 && emailLocal.test(text[from - 1]!)) from--;
      return from > 0 && emailLocal.test(text[from - 1]!) ? -1 : from;
    },
  },
  {
    // `user:password@host:port` without a scheme, as a proxy setting is written (`HTTPS_PROXY=bob:pw@squid:3128`):
    // an IP address or a name without a domain, which the e-mail format above does not take (`bob:pw@proxy.corp`
    // is an address there). The port is required: `name:package@1.2.3` and `x:y@1` are versions. What precedes
    // the `@` is read backwards by `accept`; the host stays readable.
    name: 'host_credentials',
    starts: ['@'],
    trigger: '(?<=[^\\s/?#@\'"<>]:[^\\s:/?#@\'"<>]{1,128})@(?=[A-Za-z0-9.-]{1,253}:[0-9])',
    source: String.raw`(@)(?=(?:[A-Za-z0-9-]{1,63}\.){0,8}[A-Za-z0-9-]{1,63}:[0-9]{1,5}(?![0-9A-Za-z]))`,
    replacement: `${redacted}@`,
    accept: (text, at) => {
      let colon = at;
      while (colon > 0 && at - colon < 128 && passwordCharacter.test(text[colon - 1]!)) colon--;
      if (colon === at || colon === 0 || text[colon - 1] !== ':') return -1;
      let user = colon - 1;
      while (user > 0 && colon - 1 - user < 64 && emailLocal.test(text[user - 1]!)) user--;
      if (user === colon - 1) return -1;
      // After `://` or another colon this is a URL's or a longer list's part, not a user name.
      return user > 0 && /[:/A-Za-z0-9._%+-]/.test(text[user - 1]!) ? -1 : user;
    },
  },
  {
    name: 'aws_account',
    // Also from the colon: another secret's value may have swallowed the `arn` (`..5e4farn:aws:...`).
    starts: ['arn:', ':'],
    trigger: ':aws',
    source: String.raw`(?:(?<![A-Za-z0-9])arn)?:aws[a-z-]{0,20}:[a-z0-9-]{0,40}:[a-z0-9-]{0,40}:(\d{12})`,
  },
  {
    // `org-AbC123`, `user_2x9...`: the value has a digit or mixes cases; a word (`user-friendly`,
    // `USER_PROJECT_DENIED`) is no identifier.
    name: 'prefixed_account_id',
    starts: ['org', 'user', 'proj', 'acct', 'team', 'ws', 'cus'],
    source:
      wordStart +
      ci('(?:org|user|proj|acct|team|ws|cus)[-_]') +
      '((?:(?=[A-Za-z0-9]*[0-9])|(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[a-z]))[A-Za-z0-9]{6,})',
  },
  {
    name: 'path_account_id',
    starts: ['subscriptions', 'projects', 'organizations', 'accounts', 'tenants', 'team', 'users', 'home'],
    source:
      wordStart +
      ci('(?:subscriptions|projects|organizations|accounts|tenants|teams?|users|home)') +
      String.raw`\/(?!REDACTED\b)([A-Za-z0-9._-]{2,128})`,
  },
  {
    name: 'named_account_id',
    starts: [
      'organization',
      'organisation',
      'project',
      'account',
      'team',
      'tenant',
      'workspace',
      'subscription',
      'consumer',
    ],
    source:
      wordStart +
      ci('(?:organization|organisation|project|account|team|tenant|workspace|subscription|consumer)') +
      ci('(?:[ _-]?id)?') +
      String.raw`(?:\s{0,4}[:=]\s{0,4}|\s{1,4})[('"\`]?` +
      `(?!${ci('(?:is|has|was|the|and|for|with|that|this|does|not|of|on|in|to|or|may|can|limit|rate|usage|quota|level|tier|settings|billing|credits?|member|owner|admin|access|api|key|must|before|yet)')}\\b|${ci('https?:')})` +
      String.raw`(?=[A-Za-z0-9_.:-]{4,}[)'"\`\s.,;:]|[A-Za-z0-9_.:-]{4,}$)(?=[^\s)'"\`]*[0-9_-])([A-Za-z0-9_.:-]{4,128})`,
  },
  {
    // A key after a key word in Chinese, Japanese or Korean (`密钥: 0a1b...`, `令牌：...`, `토큰: ...`): the scan
    // stops at a key word's last character (`cjkKeyWordEnds`), and the word is looked for before it. A key of 16
    // characters or more with letters and digits that is not an identifier, or what reads as a key after an
    // ASCII key word.
    name: 'cjk_keyword_key',
    starts: [],
    afterWords: true,
    source:
      String.raw`[${[...new Set(cjkKeyWordList.map((w) => w[w.length - 1]))].join('')}](?<=${cjkKeyWords})` +
      String.raw`\s{0,3}(?:[:=\uff1a]|是|为|為|は|が|은|는|이|가)?\s{0,3}["'\u201c\u300c]?` +
      String.raw`([A-Za-z0-9+/_-]{16,1024}={0,2})`,
    accept: (text, start, end) => {
      const value = text.slice(start, end);
      return (looksLikeKey(value) || (value.length >= 16 && looksLikeShortKey(value))) &&
        !isRequestId(text, start, end)
        ? start
        : -1;
    },
    extend: runCharacter,
  },
  {
    // A run of 40 or more base64 characters with `/` or `+` that reads as random (a bare AWS secret access key, an
    // Azure storage key): tried where a long run begins, before the run without `/` below, so the key goes whole.
    // A path (`packages/core/src/providers/OpenAIProvider`) is words and changes case too seldom to be one.
    name: 'base64_secret',
    starts: [],
    source: String.raw`(?<![A-Za-z0-9+/=_.-])((?=[A-Za-z0-9+/]*[+/])[A-Za-z0-9+/]{40,1024}={0,2})(?![A-Za-z0-9_-])`,
    accept: (text, start, end) => (readsAsRandom(text.slice(start, end)) ? start : -1),
  },
  {
    // A run of 32 or more key characters mixing upper case, lower case and digits: an unprefixed key (Mistral,
    // Cohere, an AWS secret). Matched only at the start of a run (the look-behind), so each run is read once; an
    // equals sign ends a run (`NAME=value` is a name and a value, base64 padding ends the value).
    // A request id (`req_...`, after `request_id`) is not one.
    name: 'high_entropy_token',
    starts: [],
    source: String.raw`(?<![A-Za-z0-9_+-])((?=[A-Za-z0-9_+-]*[A-Z])(?=[A-Za-z0-9_+-]*[a-z])(?=[A-Za-z0-9_+-]*[0-9])[A-Za-z0-9_+-]{32,}={0,2})`,
    accept: highEntropyStart,
  },
  {
    // A run of 32 or more letters, no digit, whose case changes as random text's does and that is not words run
    // together: a key that drew no digit (about one 32-character key in 300), with no key word before it.
    name: 'random_letters',
    starts: [],
    source: String.raw`(?<![A-Za-z0-9_+/=-])([A-Za-z]{32,1024}={0,2})(?![A-Za-z0-9_+/-])`,
    accept: randomLetters,
  },
];

/** Each format as an expression that matches only where it is tried (sticky). */
const sticky = secretFormats.map((f) => new RegExp(f.source, 'y'));
/** The formats tried where a long run begins, in this order. */
const longRunFormats = secretFormats.flatMap((f, index) =>
  f.starts.length === 0 && f.afterWords !== true ? [index] : [],
);
/** The formats tried at a key word's last character outside ASCII. */
const afterWordFormats = secretFormats.flatMap((f, index) => (f.afterWords === true ? [index] : []));

/**
 * Format indexes by the one or two lower-cased ASCII characters their matches begin with, in format order:
 * `startTable[c0 * 128 + c1]` (c1 is 0 for a one-character start) indexes `startLists`.
 */
const startLists: Array<Array<{ readonly index: number; readonly starts: string[] }>> = [[]];
const startTable = new Uint8Array(128 * 128);
secretFormats.forEach((format, index) => {
  for (const start of format.starts) {
    const key = start.charCodeAt(0) * 128 + (start.length > 1 ? start.charCodeAt(1) : 0);
    if (startTable[key] === 0) {
      startTable[key] = startLists.length;
      startLists.push([]);
    }
    const list = startLists[startTable[key]!]!;
    const entry = list.find((e) => e.index === index);
    if (entry === undefined) list.push({ index, starts: [start] });
    else entry.starts.push(start);
  }
});

const isAlnum = (c: number) => (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);
/** A character of a high-entropy run (`[A-Za-z0-9_+-]`). */
const isRun = (c: number) => isAlnum(c) || c === 95 || c === 43 || c === 45;
const lower = (c: number) => (c >= 65 && c <= 90 ? c | 32 : c);

/**
 * The start of a run of 32 or more high-entropy run characters or base64 characters (`/` too): where the formats
 * without a start (`longRunFormats`) are tried.
 */
const longRunSource = String.raw`(?<![A-Za-z0-9_+-])[A-Za-z0-9_+/-]{32}`;
const longRunAt = new RegExp(longRunSource, 'y');

/**
 * Every place a format can begin, as one regular expression: a word start whose first three characters begin some
 * format's start (`(?<![A-Za-z0-9])(?:sk-|aiz|tok|...)`; a shorter start whole), the other starts (`-----BEGIN`,
 * `://`, `:aws`, an `@` after an address character), the last character of a key word outside ASCII and the start
 * of a long run. It is the specification
 * `nextCandidate` is checked against (test/core/sanitize): the scan itself is written out, at a fraction of the
 * regular expression's cost.
 */
export function candidatePattern(): RegExp {
  const words = new Set<string>();
  for (const format of secretFormats) {
    for (const start of format.starts)
      if (isAlnum(start.charCodeAt(0))) words.add(escapeSource(start.slice(0, 3)));
  }
  const others = [...new Set(otherStarts().map(({ trigger }) => trigger))];
  const ends = String.fromCharCode(...cjkKeyWordEnds);
  return new RegExp(
    `(?<![A-Za-z0-9])(?:${[...words].join('|')})|${others.join('|')}|[${ends}]|${longRunSource}`,
    'gi',
  );
}

/** The starts that are not a word (`-----begin`, `:`, `@`): each with what the scan looks for there. */
function otherStarts(): Array<{ readonly first: number; readonly trigger: string }> {
  return secretFormats.flatMap((format) =>
    format.starts
      .filter((start) => !isAlnum(start.charCodeAt(0)))
      .map((start) => ({
        first: start.charCodeAt(0),
        trigger: format.trigger ?? (format.notInWord === true ? notInWordSource : '') + escapeSource(start),
      })),
  );
}

/**
 * Word starts worth stopping at, by their lower-cased characters: `wordStartsAlone[c0]` for a one-character start;
 * `wordStartsPair[c0 * 128 + c1]` is `pairIsStart` for a two-character one and, for the first two characters of
 * longer ones, 2 + their group: the bit of the third character in `wordStartsThird[group * 4 + (c2 >> 5)]`. A
 * common word that shares two letters with a start (`request`, `code`, `to`) costs the scan nothing. The tables are
 * small (17 KiB) because the scan reads them at every word: a larger one falls out of the cache between texts.
 */
const wordStartsAlone = new Uint8Array(128);
const wordStartsPair = new Uint8Array(128 * 128);
const pairIsStart = 1;
const thirdCharacters: number[] = [];
for (const format of secretFormats) {
  for (const start of format.starts) {
    const [c0, c1, c2] = [start.charCodeAt(0), start.charCodeAt(1), start.charCodeAt(2)];
    if (!isAlnum(c0)) continue;
    const pair = c0 * 128 + c1;
    if (start.length === 1) wordStartsAlone[c0] = 1;
    else if (start.length === 2) wordStartsPair[pair] = pairIsStart;
    else if (c1 < 128 && c2 < 128 && wordStartsPair[pair] !== pairIsStart) {
      if (wordStartsPair[pair] === 0) {
        if (thirdCharacters.length / 4 + 2 > 255)
          throw new Error('too many secret-format starts for the scan table');
        wordStartsPair[pair] = thirdCharacters.length / 4 + 2;
        thirdCharacters.push(0, 0, 0, 0);
      }
      thirdCharacters[(wordStartsPair[pair]! - 2) * 4 + (c2 >> 5)]! |= 1 << (c2 & 31);
    }
  }
}
const wordStartsThird = Uint32Array.from(thirdCharacters, (bits) => bits >>> 0);

/**
 * The other starts' triggers, by the character they begin at (`:` holds `://` and `:aws`): a trigger that is plain
 * text (letters, digits, escaped punctuation) is compared as lower-cased text, the rest run as sticky expressions.
 * A JSON body has a colon in every pair, so a colon must cost a comparison, not a regular expression.
 */
interface Trigger {
  /** The trigger as lower-case text, or null when it is an expression. */
  readonly literal: string | null;
  readonly expression: RegExp | null;
  /** The literal counts only where no letter or digit precedes it (`SecretFormat.notInWord`). */
  readonly notInWord: boolean;
}
const otherTriggers = new Map<number, Trigger[]>();
for (const { first, trigger } of otherStarts()) {
  const list = otherTriggers.get(first) ?? [];
  const notInWord = trigger.startsWith(notInWordSource);
  const body = notInWord ? trigger.slice(notInWordSource.length) : trigger;
  const plain = /^(?:\\[^A-Za-z0-9]|[A-Za-z0-9:@-])+$/.test(body);
  const entry: Trigger = plain
    ? { literal: body.replace(/\\(.)/g, '$1').toLowerCase(), expression: null, notInWord }
    : { literal: null, expression: new RegExp(trigger, 'iy'), notInWord: false };
  if (!list.some((t) => t.literal !== null && t.literal === entry.literal && t.notInWord === notInWord))
    list.push(entry);
  otherTriggers.set(first, list);
}
/** The same, by character code (one shape, an array read per trigger character: no map lookup, no iterator). */
const triggersByCode: ReadonlyArray<readonly Trigger[]> = Array.from(
  { length: 128 },
  (_, c) => otherTriggers.get(c) ?? [],
);
/** The same without the triggers that count only where no letter or digit precedes them. */
const triggersInWordByCode: ReadonlyArray<readonly Trigger[]> = triggersByCode.map((list) =>
  list.filter((t) => !t.notInWord),
);

/** Whether `trigger` matches `text` at `at`. */
function triggerAt(trigger: Trigger, text: string, at: number): boolean {
  const literal = trigger.literal;
  if (literal === null) {
    const expression = trigger.expression!;
    expression.lastIndex = at;
    return expression.test(text);
  }
  if (at + literal.length > text.length) return false;
  for (let k = 1; k < literal.length; k++) {
    if (lower(charCodeAt.call(text, at + k)) !== literal.charCodeAt(k)) return false;
  }
  return true;
}

/** Character classes of the ASCII characters, as bits, so the scan reads one table per character. */
const alnumBit = 1;
const runBit = 2;
const runBodyBit = 4;
const triggerBit = 8;
const asciiClass = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  asciiClass[c] =
    (isAlnum(c) ? alnumBit : 0) |
    (isRun(c) ? runBit : 0) |
    (isRun(c) || c === 47 ? runBodyBit : 0) |
    (otherTriggers.has(c) ? triggerBit : 0);
}
/** Outside ASCII only a key word's last character (`cjkKeyWordEnds`) has a class: the trigger bit. */
const classOf = (c: number): number =>
  c < 128 ? asciiClass[c]! : c >= 0x3000 && cjkKeyWordEnds.has(c) ? triggerBit : 0;

/**
 * The first place at or after `from` where a format can begin (what `candidatePattern` finds), or `text.length`.
 * One pass over character codes: a word start is looked up in the `wordStarts` tables, a punctuation start tests its
 * triggers, and the end of the current run of `[A-Za-z0-9_+/-]` is found once per run, so a long-run start costs a
 * comparison.
 */
export function nextCandidate(text: string, from: number): number {
  const n = text.length;
  let previous = from > 0 ? classOf(charCodeAt.call(text, from - 1)) : 0;
  let runEnd = -1;
  for (let i = from; i < n; i++) {
    const c = charCodeAt.call(text, i);
    const cls = classOf(c);
    if ((cls & alnumBit) !== 0) {
      if ((previous & alnumBit) === 0) {
        const c0 = c | 32;
        if (wordStartsAlone[c0] === 1) return i;
        const c1 = i + 1 < n ? lower(charCodeAt.call(text, i + 1)) : 128;
        if (c1 < 128) {
          const pair = c0 * 128 + c1;
          const group = wordStartsPair[pair]!;
          if (group === pairIsStart) return i;
          if (group !== 0) {
            const c2 = i + 2 < n ? lower(charCodeAt.call(text, i + 2)) : 128;
            if (c2 < 128 && (wordStartsThird[(group - 2) * 4 + (c2 >> 5)]! & (1 << (c2 & 31))) !== 0)
              return i;
          }
        }
      }
      // The rest of the word can begin nothing: each letter follows a letter (no word start, no run start). Its end
      // is found once, and a run that begins with the word is measured on from there.
      let wordEnd = i + 1;
      while (wordEnd < n && (classOf(charCodeAt.call(text, wordEnd)) & alnumBit) !== 0) wordEnd++;
      if ((previous & runBit) === 0) {
        if (runEnd < i) {
          runEnd = wordEnd;
          while (runEnd < n && (classOf(charCodeAt.call(text, runEnd)) & runBodyBit) !== 0) runEnd++;
        }
        if (runEnd - i >= 32) return i;
      }
      // Every letter and digit has the same class bits: `previous` is the word's last character's class too.
      i = wordEnd - 1;
      previous = cls;
      continue;
    }
    if ((cls & triggerBit) !== 0) {
      // A key word's last character outside ASCII (the only ones with the trigger bit) begins a format itself.
      if (c >= 128) return i;
      // After a letter or digit, only the triggers that may follow one (a hyphen in `gemini-2.5-pro` is no `-p`).
      const triggers = (previous & alnumBit) !== 0 ? triggersInWordByCode[c]! : triggersByCode[c]!;
      for (let k = 0; k < triggers.length; k++) if (triggerAt(triggers[k]!, text, i)) return i;
    }
    if ((cls & runBodyBit) !== 0 && (previous & runBit) === 0) {
      if (runEnd < i) {
        runEnd = i + 1;
        while (runEnd < n && (classOf(charCodeAt.call(text, runEnd)) & runBodyBit) !== 0) runEnd++;
      }
      if (runEnd - i >= 32) return i;
    }
    previous = cls;
  }
  return n;
}

function escapeSource(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * A line break (raw, or escaped once to three times as in JSON; the excerpt leaves a doubly escaped one as a
 * backslash and a raw break) and the run of key characters that opens the next
 * line: where a terminal or a logger wrapped a long key.
 */
const lineWrap =
  /[ \t]{0,4}(?:\\{0,2}(?:\r\n?|\n)|(?:\\{1,3}(?:[rn]|u000[aAdD])){1,2})[ \t]{0,8}([A-Za-z0-9+/=_-]{2,256})/y;

/**
 * Where a secret ending at `end` really ends: a key cut by a line break goes on with the next line's first run
 * when that run reads as the rest of a key (letters and digits mixed, or `+`, `/`, `=`; not a word, a number, a
 * model id or a request id), for up to eight lines. `Please check your key` or `HTTP/1.1 401` on the next line
 * stays.
 */
function wrappedEnd(text: string, end: number): number {
  for (let line = 0; line < 8; line++) {
    lineWrap.lastIndex = end;
    const m = lineWrap.exec(text);
    if (m === null || !continuesAKey(m[1]!)) break;
    end = m.index + m[0].length;
  }
  return end;
}

/**
 * The rest of a key is eight characters or more that change class often (`QrStUv0123...`, hex): a word, a CamelCase
 * name (`AuthenticationError`), a path (`python3/lib/python3`), a model id or a request id is not. A tail shorter
 * than eight characters stays: too short to be used as a credential.
 */
function continuesAKey(run: string): boolean {
  const bare = run.replace(/=+$/, '');
  return (
    bare.length >= 8 &&
    !requestIdRun.test(bare) &&
    !camelCaseWords.test(bare) &&
    changesClassOften(bare, 5) &&
    !bare.split(/[-_/.+]/).every((part) => part === '' || identifierPart.test(part))
  );
}

/** Words run together (`RateLimitError`, `OpenAI`), a number after them: a name, not the rest of a key. */
const camelCaseWords = /^[a-z]*(?:[A-Z]{1,2}[a-z]+)*[A-Z]{0,3}[0-9]{0,4}$/;

/** Formats whose span a line break may cut: credentials, not account ids, addresses or URL credentials. */
const wrappable = new Set(
  secretFormats.flatMap((f, index) =>
    [
      'email',
      'url_credentials',
      'cookie',
      'aws_account',
      'prefixed_account_id',
      'path_account_id',
      'named_account_id',
    ].includes(f.name)
      ? []
      : [index],
  ),
);

/** One secret found: text[start, end) is shown as `replacement`. */
export interface SecretSpan {
  readonly start: number;
  readonly end: number;
  readonly replacement: string;
}

/**
 * The secrets of `text`, in order and disjoint, found in one pass over it. One scan (`nextCandidate`) finds
 * the only places a format can begin: a word start whose first two letters begin a prefix or key word, the
 * other starts, the start of a long run. There the pass tries the formats that can begin so, in `secretFormats`
 * order, the first that matches (and whose `accept` takes it) winning; a key cut by a line break goes on with the
 * next line (`wrappedEnd`). Text with none of those places costs the scan and nothing else.
 */
export function findSecrets(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  const n = text.length;
  let i = 0;
  refusedEscapes.text = '';
  acceptedEscapes.text = '';
  while (i < n) {
    // The scan runs to the next place a format can begin; what lies between is never looked at again.
    i = nextCandidate(text, i);
    if (i >= n) break;
    let span: SecretSpan | null = null;
    let skipTo = i + 1;
    // A hit is a word start, `-----BEGIN`, `://`, `:aws` or `@` (whose table entry holds only its own formats),
    // or a key word's last character outside ASCII.
    const c = charCodeAt.call(text, i);
    if (c >= 128) {
      for (const index of afterWordFormats) {
        span = attempt(text, i, index);
        if (span !== null) break;
      }
    } else {
      // Never read past the end: an out-of-range read (NaN) makes V8 recompile the scan on a slower path.
      const c1 = c === 58 || c === 64 ? 0 : i + 1 < n ? lower(charCodeAt.call(text, i + 1)) : 128;
      const list = c1 < 128 ? startTable[lower(c) * 128 + c1]! : 0;
      for (const { index, starts } of startLists[list]!) {
        if (!startsWithAny(text, i, starts)) continue;
        span = attempt(text, i, index);
        if (span !== null) break;
      }
    }
    longRunAt.lastIndex = i;
    if (span === null && longRunAt.test(text)) {
      for (const index of longRunFormats) {
        span = attempt(text, i, index);
        if (span !== null) break;
      }
      // A refused run of 32 or more (a request id) is skipped whole, as a run is read once. A shorter one (the
      // hit was a base64 run with `/`: `python-projects/...`) is not: a word in it may begin a format.
      if (span === null) {
        let end = i;
        while (end < n && isRun(charCodeAt.call(text, end))) end++;
        if (end - i >= 32) skipTo = encodedQueryWithin(text, i + 1, end) ?? end;
      }
    }
    if (span !== null) {
      // Spans may overlap: a key word's value can swallow the first letters of another secret (`...5e4farn:aws:...`),
      // so the scan goes on inside a span, and what an overlapping one adds after it is replaced too. An e-mail's
      // local part, read backwards, may reach into the secret before it the same way; but an `@` inside the span
      // before is the end of `user:password@` and what follows it is the host, not an address.
      const last = spans[spans.length - 1];
      if (last === undefined || span.start >= last.end) spans.push(span);
      else if (span.end > last.end && !(span.replacement === email && i < last.end))
        spans.push({ ...span, start: last.end });
    }
    i = skipTo;
  }
  return spans;
}

/**
 * Where a URL-encoded `?` or `&` begins inside a refused run (`next=%2Fapi%3Ftoken%3D...` is one run), so the scan
 * reads the query parameter after it (`encoded_query_parameter`) instead of skipping the run whole. Only the run is
 * read: a search to the end of the text, once per refused run, made a text of many long runs (paths, ids) cost the
 * square of its length.
 */
function encodedQueryWithin(text: string, from: number, end: number): number | null {
  for (let at = from; at + 2 < end; at++) {
    if (charCodeAt.call(text, at) !== 37) continue;
    const c1 = charCodeAt.call(text, at + 1);
    const c2 = charCodeAt.call(text, at + 2);
    if ((c1 === 51 && (c2 === 70 || c2 === 102)) || (c1 === 50 && c2 === 54)) return at;
  }
  return null;
}

/** Whether text at `at` begins with one of `starts` (lower-case), letters compared without case. */
function startsWithAny(text: string, at: number, starts: readonly string[]): boolean {
  next: for (const start of starts) {
    if (at + start.length > text.length) continue;
    for (let k = 2; k < start.length; k++) {
      if (lower(charCodeAt.call(text, at + k)) !== start.charCodeAt(k)) continue next;
    }
    return true;
  }
  return false;
}

/** Format `index` tried at `at`: its span, or null when it does not match there or its `accept` refuses. */
function attempt(text: string, at: number, index: number): SecretSpan | null {
  const format = secretFormats[index]!;
  const expression = sticky[index]!;
  expression.lastIndex = at;
  const m = expression.exec(text);
  if (m === null) return null;
  let end = at + m[0].length;
  const start = format.accept?.(text, end - m[1]!.length, end) ?? end - m[1]!.length;
  if (start < 0) return null;
  if (format.extend !== undefined) {
    while (end < text.length && format.extend.test(text[end]!)) end++;
  }
  if (format.acceptedEnd !== undefined) end = format.acceptedEnd();
  if (wrappable.has(index)) end = wrappedEnd(text, end);
  return { start, end, replacement: format.replacement ?? redacted };
}
