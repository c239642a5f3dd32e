// Redaction cost: the one-pass sanitizer (dist/) against the one it replaced (issue 10), same run, same inputs (the
// corpus texts). The baseline is a copy of the old functions, kept here only to be timed: one regular expression
// per format, each run over the text when its literal hints occur, and an excerpt redacted twice (the window with
// its lead-in, and the lead-in alone). A benchmark, not a test: it prints figures and never fails
// (npm run bench:redact).
import { parseEnvelope, redactSecrets, safeExcerpt } from '../dist/core/index.js';
import { cutUtf8, cutUtf8Tail } from '../dist/core/text/utf8.js';
import { stripControlCharacters } from '../dist/core/text/whitespace.js';
import { corpusFiles, readCorpus, toEnvelope } from '../test/helpers/corpus.mjs';

// ---- The old sanitizer (src/core/sanitize before issue 10), types removed. ----

const R = '[REDACTED]';

/** Names under which credentials are assigned (`api_key=`, `"Authorization":`, `password:`). */
const credentialKey = String.raw`(?:api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|secret[_-]?access[_-]?key|subscription[_-]?key|ocp-apim-subscription-key|access[_-]?token|refresh[_-]?token|id[_-]?token|auth[_-]?token|session[_-]?token|security[_-]?token|bearer[_-]?token|client[_-]?secret|secret|password|passwd|pwd|token|key|credentials?|authorization|proxy-authorization|cookie|set-cookie|signature|sig)`;

const oldPatterns = [
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

const escape = (literal) => literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const hintScans = oldPatterns.map((p) =>
  p.hints.length === 0 ? null : new RegExp(p.hints.map(escape).join('|'), p.caseless ? 'i' : ''),
);

function oldRedactSecrets(text) {
  let out = text;
  for (let i = 0; i < oldPatterns.length; i++) {
    const hints = hintScans[i];
    if (hints && !hints.test(out)) continue;
    const spec = oldPatterns[i];
    out = out.replace(spec.pattern, spec.replace);
  }
  return out;
}

const excerptMaxBytes = 512;
const windowChars = 640;
const snapChars = 256;
const leadInChars = 256;

function oldSafeExcerpt(raw, anchor = { at: 'head' }) {
  if (raw.length === 0) return '';
  let start = 0;
  let end = raw.length;
  if (anchor.at === 'tail') {
    start = Math.max(0, raw.length - windowChars);
  } else if (anchor.at === 'offset') {
    start = Math.max(0, Math.min(raw.length, anchor.offset) - 160);
  }
  if (start > 0) start = snapForward(raw, start);
  if (end - start > windowChars) end = snapForward(raw, start + windowChars);
  const clean = sanitizeWindow(raw, start, end).replace(/ {2,}/g, ' ').trim();
  if (anchor.at === 'tail') return cutUtf8Tail(clean, excerptMaxBytes).trimStart();
  return cutUtf8(clean, excerptMaxBytes).trimEnd();
}

function sanitizeWindow(raw, start, end) {
  if (start === 0) return clean(raw.slice(0, end));
  const lead = Math.max(0, start - leadInChars);
  const whole = clean(raw.slice(lead, end));
  const leadIn = clean(raw.slice(lead, start));
  return whole.startsWith(leadIn) ? whole.slice(leadIn.length) : whole;
}

const escapedControl = /\\(?:[nrtfbv]|u00[01][0-9a-fA-F])/g;

function clean(text) {
  return oldRedactSecrets(stripControlCharacters(text).replace(escapedControl, ' '));
}

const tokenCharacter = /[A-Za-z0-9._~+/=*-]/;

function snapForward(text, index) {
  const limit = Math.min(text.length, index + snapChars);
  for (let i = index; i < limit; i++) {
    if (!tokenCharacter.test(text[i])) return i;
  }
  return index;
}

// ---- The measurement. ----

/** The text each corpus record's classification excerpts: its body, message or stderr. */
const texts = corpusFiles
  .flatMap(readCorpus)
  .map((record) => parseEnvelope(toEnvelope(record)))
  .filter((parsed) => parsed.ok)
  .map(({ evidence }) =>
    evidence.kind === 'http'
      ? evidence.body
      : evidence.kind === 'sdk_exception' || evidence.kind === 'acp_error'
        ? evidence.message
        : evidence.kind === 'process_exit'
          ? evidence.stderrTail
          : (evidence.text ?? ''),
  )
  .filter((text) => text.length > 0);

/** An excerpt at the head and one around the middle, as the classifier takes them (a rule's match). */
const excerpts = (excerpt) => () => {
  for (const text of texts) {
    excerpt(text, { at: 'head' });
    excerpt(text, { at: 'offset', offset: text.length >> 1 });
  }
};
const whole = (redact) => () => {
  for (const text of texts) redact(text);
};

/**
 * The best of `rounds` timings of each of `works` (ms), taken in turns so a slower phase of a shared machine
 * weighs on all of them; the best, not the median, because load only ever adds time.
 */
function best(works, rounds = 80) {
  for (let i = 0; i < 10; i++) for (const work of works) work();
  const bests = works.map(() => Infinity);
  for (let i = 0; i < rounds; i++) {
    works.forEach((work, k) => {
      // CPU time of this process, not wall time: on a shared 2-core machine the wall clock mostly measures waiting.
      const start = process.cpuUsage();
      work();
      const used = process.cpuUsage(start);
      bests[k] = Math.min(bests[k], (used.user + used.system) / 1000);
    });
  }
  return bests;
}

const chars = texts.reduce((n, t) => n + t.length, 0);
console.log(
  `${texts.length} corpus texts, ${chars.toLocaleString('en-US')} characters in all; best of 80 rounds (CPU time)\n`,
);
const rows = [
  ['safeExcerpt (head + middle)', excerpts(oldSafeExcerpt), excerpts(safeExcerpt), texts.length * 2],
  ['redactSecrets (whole text)', whole(oldRedactSecrets), whole(redactSecrets), texts.length],
];
for (const [label, oldWork, newWork, calls] of rows) {
  const [oldMs, newMs] = best([oldWork, newWork]);
  const us = (ms) => `${((ms * 1000) / calls).toFixed(2).padStart(7)} µs/call`;
  console.log(
    `${label.padEnd(30)} old ${us(oldMs)}   new ${us(newMs)}   old/new ${(oldMs / newMs).toFixed(2)}x`,
  );
}

// Same output where the old one was right: how many corpus excerpts differ (the new one keeps request ids and
// words after key words, and finds keys the old one missed).
const differ = texts.filter((t) => oldSafeExcerpt(t) !== safeExcerpt(t)).length;
console.log(`\nexcerpts that differ (head): ${differ} of ${texts.length}`);
