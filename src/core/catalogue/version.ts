/**
 * The catalogue version stamped on every classification (and kept by every historical attempt). Bump it
 * with any change to a rule; the registry test pins the fingerprint of the rules to this version.
 */
export const catalogueVersion = '2026.12.07-14';

/** Fingerprint of the rule set this version was released with (see test/core/catalogue/registry.test.ts). */
export const catalogueFingerprint = '241-1d923d68';
