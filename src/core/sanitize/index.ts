export { redactSecrets } from './redact-secrets.js';
export { excerptMaxBytes, safeExcerpt, safeIdentifier, type ExcerptAnchor } from './safe-excerpt.js';
