import { describe, expect, it } from 'vitest';
import { redactSecrets, safeExcerpt } from '../../../src/core/index.js';
import { fake } from '../../helpers/planted-credentials.js';

/**
 * Tokens of the services around an agent (tracing, search, vector stores, registries, secret stores, hosting) that
 * are lower-case, hex or short, so no long-run format takes them: each goes by its prefix, and identifiers that
 * merely begin the same way stay.
 */

const hex = '0123456789abcdef';
const lower = 'abcdefghijkmnopqrstuvwxyz0123456789';
const bech32 = 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L';

const tokens: readonly (readonly [string, string])[] = [
  ['LangSmith personal token', `lsv2_pt_${fake(1, 32, hex)}_${fake(2, 10, hex)}`],
  ['LangSmith service key', `lsv2_sk_${fake(3, 32, hex)}_${fake(4, 10, hex)}`],
  ['HashiCorp Vault service token', `hvs.${fake(5, 24)}`],
  ['Sentry user token', `sntryu_${fake(6, 64, hex)}`],
  ['Notion integration token', `ntn_${fake(7, 46, lower)}`],
  ['Notion legacy integration secret', `secret_${fake(8, 43)}`],
  ['Supabase access token', `sbp_${fake(9, 40, hex)}`],
  ['Supabase secret key', `sb_secret_${fake(10, 31)}`],
  ['age secret key', `AGE-SECRET-KEY-1${fake(11, 58, bech32)}`],
  ['ElevenLabs key', `sk_${fake(12, 48, hex)}`],
  ['Jina key', `jina_${fake(13, 60, lower)}`],
  ['Brave Search key', `BSA${fake(14, 27)}`],
  ['Tavily key', `tvly-dev-${fake(15, 32)}`],
  ['Pinecone key', `pcsk_${fake(16, 6, lower)}_${fake(17, 60)}`],
  ['Docker personal access token', `dckr_pat_${fake(18, 27)}`],
  ['PyPI upload token', `pypi-AgEIcHlwaS5vcmc${fake(19, 60)}`],
  ['Linear key', `lin_api_${fake(20, 40)}`],
  ['Postman key', `PMAK-${fake(21, 24, hex)}-${fake(22, 34, hex)}`],
  ['Figma token', `figd_${fake(23, 40)}`],
  ['Netlify token', `nfp_${fake(24, 36)}`],
  ['PlanetScale service token', `pscale_tkn_${fake(25, 43)}`],
  ['Atlassian API token', `ATATT3xFfGF0${fake(26, 40)}`],
  ['Grafana service account token', `glsa_${fake(27, 32)}_${fake(28, 8, hex)}`],
  ['Grafana Cloud token', `glc_${fake(29, 60)}`],
  ['Doppler service token', `dp.st.prd.${fake(30, 43)}`],
  ['Render key', `rnd_${fake(31, 30)}`],
  ['Fly.io token', `fo1_${fake(32, 40)}`],
  ['1Password service account token', `ops_eyJzaWduSW5BZGRyZXNz${fake(33, 60)}`],
];

/** Every 8-character fragment of `secret`'s random tail that `out` still shows. */
function fragmentsIn(out: string, secret: string): string[] {
  const shown: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i++) {
    const piece = secret.slice(i, i + 8);
    if (out.includes(piece)) shown.push(piece);
  }
  return shown;
}

describe('[DAT-09][CLS-21] service tokens by their prefixes', () => {
  it.each(tokens)('redacts a %s in stderr, an assignment and a JSON body', (_format, secret) => {
    for (const text of [
      `error: request failed while starting the tool with ${secret} (401)`,
      `export SERVICE_TOKEN=${secret}`,
      `{"error":{"message":"token ${secret} rejected"}}`,
    ]) {
      expect(fragmentsIn(redactSecrets(text), secret), text).toEqual([]);
      expect(fragmentsIn(safeExcerpt(text), secret), text).toEqual([]);
    }
  });

  it.each([
    'the secret_access_key_identifier_for_the_deployment was not set',
    'loading jina_embeddings_v2_base_en_multilingual_model failed',
    'rnd_seed_for_the_sampling_distribution_is_fixed',
    'ops_get_user_profile_by_identifier_and_tenant_id_handler failed',
    'pip could not reach pypi-simple-mirror-for-the-internal-registry',
    'BSAFE mode is on; sk_live is not a key',
    'dp.pt is a short name, hvs.local too',
  ])('leaves identifiers that only begin like one: %s', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });
});
