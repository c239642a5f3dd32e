import type { Rule } from './rule.js';

/**
 * A stable fingerprint of a rule set (FNV-1a over a canonical rendering of every rule, regular expressions by
 * source and flags). The registry test pins it to `catalogueVersion`, so a rule cannot change silently under
 * an old version: historical attempts name the version that classified them.
 */
export function fingerprintRules(rules: readonly Rule[]): string {
  const canonical = JSON.stringify(rules, (_key, value: unknown) =>
    value instanceof RegExp ? `/${value.source}/${value.flags}` : value,
  );
  let hash = 0x811c9dc5;
  for (let i = 0; i < canonical.length; i++) {
    hash ^= canonical.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${rules.length}-${hash.toString(16).padStart(8, '0')}`;
}
