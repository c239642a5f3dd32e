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

export function structuredFields(text: string): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  if (!text.includes(':') && !text.includes('=')) return fields;
  for (const m of text.matchAll(fieldPattern)) {
    const key = m[1]!;
    const value = (m[2] ?? m[3] ?? '').trim();
    if (value === '') continue;
    const list = fields.get(key);
    if (list === undefined) fields.set(key, [value]);
    else if (list.length < 16 && !list.includes(value)) list.push(value);
  }
  return fields;
}
