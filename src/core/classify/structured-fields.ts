import { fieldKeys } from '../catalogue/rule.js';

/**
 * Structured key/value pairs found in JSON, Python-repr and JS-object text (`"type":"overloaded_error"`,
 * `'code': 'insufficient_quota'`, `code: 'rate_limit_exceeded'`, escaped JSON inside a string). Values are
 * lower-case; numbers are kept as text. One linear pass over the lower-cased window.
 */
const fieldPattern = new RegExp(
  `(?:^|[^a-z0-9_])\\\\{0,3}["']?(${fieldKeys.join('|')})\\\\{0,3}["']?\\s{0,3}[:=]\\s{0,3}(?:\\\\{0,3}["']([^"'\\\\\\n]{1,100})\\\\{0,3}["']|(-?\\d{1,6})(?![\\d.]))`,
  'g',
);

/**
 * Codex's `codexErrorInfo` is a string (`"usageLimitExceeded"`), an object keyed by its variant
 * (`{"httpConnectionFailed":{"httpStatusCode":503}}`), or snake_case (`"codex_error_info":"usage_limit_exceeded"`).
 */
const codexVariant =
  /codex_?error_?info\\{0,3}["']?\s{0,3}:\s{0,3}\{?\s{0,3}\\{0,3}["']([a-z_]{3,60})\\{0,3}["']/g;

const underscores = /_/g;

export function structuredFields(text: string): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  if (!text.includes(':') && !text.includes('=')) return fields;
  const add = (key: string, value: string) => {
    const list = fields.get(key);
    if (list === undefined) fields.set(key, [value]);
    else if (list.length < 16 && !list.includes(value)) list.push(value);
  };
  // `exec` on the module's own global expressions rather than `matchAll`, which clones the expression and steps
  // through a generic iterator on every call; neither expression matches the empty string, so the loops see the
  // same matches.
  fieldPattern.lastIndex = 0;
  for (let m = fieldPattern.exec(text); m !== null; m = fieldPattern.exec(text)) {
    const value = (m[2] ?? m[3] ?? '').trim();
    if (value !== '') add(m[1]!, value);
  }
  if (text.includes('error')) {
    codexVariant.lastIndex = 0;
    for (let m = codexVariant.exec(text); m !== null; m = codexVariant.exec(text))
      add('codexerrorinfo', m[1]!.replace(underscores, ''));
  }
  return fields;
}
