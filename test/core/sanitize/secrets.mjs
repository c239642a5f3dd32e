// @ts-check
// Plain JavaScript, type-checked by tsc: the hostile-input generator that plants these samples is shared with a
// benchmark that runs on Node without a TypeScript loader.

/**
 * Credential and account-identifier samples used by the sanitizer tests and the property test: shaped like the
 * real thing, generated here, never real. `value` is what must not survive; `text` is how it appears.
 * @typedef {object} SecretSample
 * @property {string} kind
 * @property {string} value
 * @property {string} text
 * @property {boolean} selfEvident recognizable on its own (a prefixed key, a JWT, an e-mail), not only by the
 *   words around it
 */

/**
 * @param {string} [seed]
 * @returns {SecretSample[]}
 */
export function secretSamples(seed = 'Q7x') {
  const r = (
    /** @type {number} */ n,
    alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789',
  ) =>
    Array.from(
      { length: n },
      (_, i) => alphabet[(i * 7 + seed.charCodeAt(i % seed.length)) % alphabet.length],
    ).join('');
  const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI${r(20)}.${r(30)}`;
  /** @type {Array<Omit<SecretSample, 'selfEvident'>>} */
  const samples = [
    { kind: 'anthropic key', value: `sk-ant-api03-${r(40)}`, text: '' },
    { kind: 'openai project key', value: `sk-proj-${r(48)}`, text: '' },
    { kind: 'openai legacy key', value: `sk-${r(48)}`, text: '' },
    { kind: 'openrouter key', value: `sk-or-v1-${r(64, '0123456789abcdef')}`, text: '' },
    { kind: 'google api key', value: `AIza${r(35)}`, text: '' },
    { kind: 'google oauth token', value: `ya29.${r(60)}`, text: '' },
    { kind: 'groq key', value: `gsk_${r(52)}`, text: '' },
    { kind: 'xai key', value: `xai-${r(60)}`, text: '' },
    { kind: 'huggingface token', value: `hf_${r(34)}`, text: '' },
    { kind: 'aws access key', value: `AKIA${r(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`, text: '' },
    { kind: 'aws secret key', value: r(40), text: '' },
    { kind: 'github token', value: `ghp_${r(36)}`, text: '' },
    { kind: 'github fine-grained token', value: `github_pat_${r(22)}_${r(59)}`, text: '' },
    { kind: 'slack token', value: `xoxb-${r(12, '0123456789')}-${r(24)}`, text: '' },
    { kind: 'stripe key', value: `sk_live_${r(24)}`, text: '' },
    { kind: 'jwt', value: jwt, text: '' },
    { kind: 'bearer token', value: r(32, 'abcdef0123456789'), text: '' },
    { kind: 'basic auth', value: 'dXNlcjpodW50ZXIy', text: '' },
    { kind: 'url password', value: 'hunter2pass', text: '' },
    { kind: 'email', value: `jane.${r(6, 'abcdefgh')}@example.org`, text: '' },
    { kind: 'openai org id', value: `org-${r(24)}`, text: '' },
    { kind: 'user id', value: `user_${r(24)}`, text: '' },
    { kind: 'azure key in header', value: r(32, '0123456789abcdef'), text: '' },
    { kind: 'password assignment', value: 'correct-horse-battery', text: '' },
    { kind: 'private key', value: r(64), text: '' },
    { kind: 'gcp project id', value: `my-project-${r(6, '0123456789')}`, text: '' },
    { kind: 'aws account id', value: r(12, '0123456789'), text: '' },
    {
      kind: 'azure subscription',
      value: `0f3c${r(4, '0123456789abcdef')}-1b2c-4d5e-8f90-${r(12, '0123456789abcdef')}`,
      text: '',
    },
  ];
  const contextual = new Set([
    'aws secret key',
    'bearer token',
    'basic auth',
    'url password',
    'azure key in header',
    'password assignment',
    'private key',
    'gcp project id',
    'aws account id',
    'azure subscription',
  ]);
  return samples.map((s) => ({ ...s, text: present(s), selfEvident: !contextual.has(s.kind) }));
}

/**
 * @param {Omit<SecretSample, 'selfEvident'>} s
 * @returns {string}
 */
function present(s) {
  switch (s.kind) {
    case 'aws secret key':
      return `aws_secret_access_key = ${s.value}`;
    case 'bearer token':
      return `Authorization: Bearer ${s.value}`;
    case 'basic auth':
      return `Authorization: Basic ${s.value}`;
    case 'url password':
      return `proxy https://admin:${s.value}@proxy.internal:8080 refused`;
    case 'azure key in header':
      return `"api-key": "${s.value}"`;
    case 'password assignment':
      return `password=${s.value}`;
    case 'private key':
      return `-----BEGIN RSA PRIVATE KEY-----\n${s.value}\n${s.value}\n-----END RSA PRIVATE KEY-----`;
    case 'gcp project id':
      return `Permission denied on resource project ${s.value}.`;
    case 'aws account id':
      return `arn:aws:bedrock:us-east-1:${s.value}:inference-profile/x`;
    case 'azure subscription':
      return `/subscriptions/${s.value}/resourceGroups/rg`;
    default:
      return `key: ${s.value}`;
  }
}
