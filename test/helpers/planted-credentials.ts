import type { EvidenceEnvelope } from '../../src/core/index.js';

/**
 * Credentials planted in failure evidence by the tests that prove none comes out (the classifier's output, the
 * database, logs, events, the web page's DOM): deterministic, never real, in the formats real keys have.
 */
/** A deterministic, never-real credential: `n` characters of `alphabet`. */
export function fake(
  seed: number,
  n: number,
  alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789',
) {
  let x = seed * 2654435761;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out += alphabet[(x >>> 8) % alphabet.length];
  }
  return out;
}

const hex = '0123456789abcdef';
const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const letters = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Each character as a JSON escape (`A` is `\u0041`): a key written so in a body. */
const jsonEscaped = (s: string) =>
  [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/** A Discord bot token: base64 of a numeric account id, a timestamp, an HMAC. */
const discordToken = (seed: number) =>
  `${Buffer.from(`1${fake(seed, 18, '0123456789')}`)
    .toString('base64')
    .replace(/=+$/, '')}.${fake(seed + 1, 6)}.${fake(seed + 2, 38)}`;

/**
 * One credential format: the secret, how it reads in prose (stderr, a message), and the header it travels in.
 * `header` is `[name, value]`; the value contains the secret.
 */
export interface Planted {
  readonly format: string;
  readonly secret: string;
  readonly prose: string;
  readonly header: readonly [string, string];
}

export const apimKey = fake(1, 32, hex);
const apimMessage =
  'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.';

export const planted: readonly Planted[] = [
  ((s) => ({
    format: 'Azure API Management subscription key (32 hex)',
    secret: s,
    prose: `${apimMessage} invalid subscription key ${s}`,
    header: ['Ocp-Apim-Subscription-Key', s],
  }))(apimKey),
  ((s) => ({
    format: 'Azure APIM key in its header, quoted in the message',
    secret: s,
    prose: `${apimMessage} (Ocp-Apim-Subscription-Key: ${s})`,
    header: ['Ocp-Apim-Subscription-Key', s],
  }))(fake(2, 32, hex)),
  ((s) => ({
    format: 'Azure OpenAI api-key (32 hex)',
    secret: s,
    prose: `Access denied: the api-key ${s} is not valid for this resource`,
    header: ['api-key', s],
  }))(fake(3, 32, hex)),
  ((s) => ({
    format: 'Anthropic key',
    secret: s,
    prose: `invalid x-api-key: ${s}`,
    header: ['x-api-key', s],
  }))(`sk-ant-api03-${fake(4, 86)}-${fake(5, 6)}AA`),
  ((s) => ({
    format: 'OpenAI project key',
    secret: s,
    prose: `Incorrect API key provided: ${s}. You can find your API key at the dashboard.`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`sk-proj-${fake(6, 100)}`),
  ((s) => ({
    format: 'OpenRouter key',
    secret: s,
    prose: `upstream rejected ${s} (401)`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`sk-or-v1-${fake(7, 64, hex)}`),
  ((s) => ({
    format: 'Google API key',
    secret: s,
    prose: `POST https://generativelanguage.googleapis.com/v1beta/models/x:generateContent?key=${s} 400`,
    header: ['x-goog-api-key', s],
  }))(`AIza${fake(8, 35)}`),
  ((s) => ({
    format: 'Google OAuth access token',
    secret: s,
    prose: `request had invalid authentication credentials ${s}`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`ya29.${fake(9, 120)}`),
  ((s) => ({
    format: 'GitHub token',
    secret: s,
    prose: `git push failed for ${s}`,
    header: ['Authorization', `token ${s}`],
  }))(`ghp_${fake(10, 36)}`),
  ((s) => ({
    format: 'GitHub fine-grained token',
    secret: s,
    prose: `copilot auth with ${s} refused`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`github_pat_${fake(11, 22)}_${fake(12, 59)}`),
  ((s) => ({
    format: 'Slack bot token',
    secret: s,
    prose: `notify failed: ${s} revoked`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`xoxb-${fake(13, 12, '0123456789')}-${fake(14, 24)}`),
  ((s) => ({
    format: 'AWS access key id',
    secret: s,
    prose: `The security token included in the request is invalid (${s})`,
    header: ['X-Amz-Security-Token', s],
  }))(`AKIA${fake(15, 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`),
  ((s) => ({
    format: 'AWS secret access key',
    secret: s,
    prose: `config: aws_secret_access_key = ${s}`,
    header: ['x-amz-secret', s],
  }))(fake(16, 40, b64)),
  ((s) => ({
    format: 'Hugging Face token',
    secret: s,
    prose: `Invalid user token ${s}`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`hf_${fake(17, 34)}`),
  ((s) => ({
    format: 'Groq key',
    secret: s,
    prose: `Invalid API Key ${s}`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`gsk_${fake(18, 52)}`),
  ((s) => ({
    format: 'xAI key',
    secret: s,
    prose: `Incorrect API key provided: ${s}`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`xai-${fake(19, 80)}`),
  ((s) => ({
    format: 'Stripe live key',
    secret: s,
    prose: `billing hook failed with ${s}`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`sk_live_${fake(20, 24)}`),
  ((s) => ({
    format: 'JWT',
    secret: s,
    prose: `token rejected: ${s}`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOi${fake(21, 40)}.${fake(22, 43)}`),
  ((s) => ({
    format: 'PEM private key',
    secret: s,
    prose: `could not load key: -----BEGIN RSA PRIVATE KEY-----\n${s.slice(0, 64)}\n${s.slice(64)}\n-----END RSA PRIVATE KEY-----`,
    header: ['x-client-key', `-----BEGIN PRIVATE KEY----- ${s} -----END PRIVATE KEY-----`],
  }))(fake(23, 128, b64)),
  ((s) => ({
    format: 'URL user:password',
    secret: s,
    prose: `proxy https://svc-user:${s}@proxy.internal:8080 refused the connection`,
    header: ['Proxy-Authorization', `Basic ${Buffer.from(`svc-user:${s}`).toString('base64')}`],
  }))(fake(24, 18)),
  ((s) => ({
    format: 'proxy user:password@host:port without a scheme',
    secret: s,
    prose: `tunneling socket could not be established: proxy svc-user:${s}@10.20.0.5:3128 refused`,
    header: ['x-proxy', `svc-user:${s}@squid:3128`],
  }))(fake(87, 18)),
  ((s) => ({
    format: 'Docker registry auth (base64 of user:password)',
    secret: s,
    prose: `error getting credentials: config {"auths":{"registry.internal:5000":{"auth":"${s}"}}}`,
    header: ['x-registry-auth', s],
  }))(Buffer.from(`svc-user:${fake(88, 14)}`).toString('base64')),
  ((s) => ({
    format: 'Bearer opaque token (hex)',
    secret: s,
    prose: `sent Authorization: Bearer ${s} and got 401`,
    header: ['Authorization', `Bearer ${s}`],
  }))(fake(25, 40, hex)),
  ((s) => ({
    format: 'Basic credentials',
    secret: s,
    prose: `Authorization: Basic ${s} was refused`,
    header: ['Authorization', `Basic ${s}`],
  }))(Buffer.from(`admin:${fake(26, 14)}`).toString('base64')),
  ((s) => ({
    format: 'password assignment',
    secret: s,
    prose: `database url rejected: password=${s}`,
    header: ['x-db-password', s],
  }))(`${fake(27, 8)}!${fake(28, 6)}`),
  ((s) => ({
    format: 'Azure AD client secret',
    secret: s,
    prose: `AADSTS7000215: Invalid client secret provided. client_secret=${s}`,
    header: ['x-client-secret', s],
  }))(`${fake(29, 3)}8Q~${fake(30, 34, `${b64.slice(0, 62)}._-`)}`),
  ((s) => ({
    format: 'session cookie',
    secret: s,
    prose: `Set-Cookie: sessionid=${s}; Path=/; HttpOnly`,
    header: ['Cookie', `sessionid=${s}; theme=dark`],
  }))(fake(31, 32)),
  ((s) => ({
    format: 'unprefixed key after "token is" (base64)',
    secret: s,
    prose: `the access token is ${s}, which has expired`,
    header: ['X-Auth-Token', s],
  }))(fake(32, 44, b64)),
  ((s) => ({
    format: 'UUID api key',
    secret: s,
    prose: `Unauthorized: api key ${s} not recognized`,
    header: ['x-api-key', s],
  }))(
    `${fake(33, 8, hex)}-${fake(34, 4, hex)}-4${fake(35, 3, hex)}-a${fake(36, 3, hex)}-${fake(37, 12, hex)}`,
  ),
  ((s) => ({
    format: 'Mistral-style unprefixed 32-character key',
    secret: s,
    prose: `{"message":"Unauthorized","request_id":"7c3e"} with key=${s}`,
    header: ['Authorization', `Bearer ${s}`],
  }))(fake(38, 32)),
  ((s) => ({
    format: 'Replicate token',
    secret: s,
    prose: `replicate: invalid token ${s}`,
    header: ['Authorization', `Token ${s}`],
  }))(`r8_${fake(39, 37)}`),
  ((s) => ({
    format: 'GitLab token',
    secret: s,
    prose: `remote: HTTP Basic: Access denied for ${s}`,
    header: ['PRIVATE-TOKEN', s],
  }))(`glpat-${fake(40, 20)}`),
  ((s) => ({
    format: 'Anthropic key wrapped by the terminal across two lines',
    secret: s,
    prose: `invalid x-api-key: ${s.slice(0, 48)}\n${s.slice(48)}\nPlease check your key.`,
    header: ['x-api-key', s],
  }))(`sk-ant-api03-${fake(41, 70)}`),
  ((s) => ({
    format: 'Azure APIM key wrapped after its key word (CR LF)',
    secret: s,
    prose: `${apimMessage} invalid subscription key ${s.slice(0, 16)}\r\n${s.slice(16)}`,
    header: ['Ocp-Apim-Subscription-Key', s],
  }))(fake(42, 32, hex)),
  ((s) => ({
    format: 'bare AWS secret access key with / and +',
    secret: s,
    prose: `profile default loaded ${s} from the shared file`,
    header: ['x-amz-meta-note', `loaded ${s}`],
  }))(`${fake(43, 12, b64)}/${fake(44, 13, b64)}+${fake(45, 13, b64)}`),
  ((s) => ({
    format: 'AWS secret access key in an STS XML body, starting with +',
    secret: s,
    prose: `<Credentials><SecretAccessKey>${s}</SecretAccessKey></Credentials>`,
    header: ['x-amz-secret-access-key', s],
  }))(`+${fake(46, 20, b64)}/${fake(47, 18, b64)}`),
  ((s) => ({
    format: 'environment assignment of an unprefixed key',
    secret: s,
    prose: `spawn failed with MISTRAL_API_KEY=${s} set`,
    header: ['x-env', `MISTRAL_API_KEY=${s}`],
  }))(fake(48, 32)),
  ((s) => ({
    format: 'api_key URL query parameter',
    secret: s,
    prose: `GET https://api.example.com/v1/chat?alt=sse&api_key=${s} returned 401`,
    header: ['Referer', `https://api.example.com/v1/chat?api_key=${s}`],
  }))(fake(49, 24)),
  ((s) => ({
    // A query inside another URL's query: the `=` is URL-encoded (a hostile review found it kept).
    format: 'URL-encoded token query parameter',
    secret: s,
    prose: `redirect to https://login.example.com/?next=%2Fapi%3Ftoken%3D${s} returned 502 Bad Gateway`,
    header: ['Location', `https://login.example.com/?next=%2Fapi%3Faccess_token%3D${s}`],
  }))(fake(60, 28, 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789')),
  ((s) => ({
    format: 'DeepSeek key (sk- and 32 hex)',
    secret: s,
    prose: `Authentication Fails, Your api key: ${s} is invalid`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`sk-${fake(50, 32, hex)}`),
  ((s) => ({
    format: 'Anthropic admin key',
    secret: s,
    prose: `admin API refused ${s}`,
    header: ['x-api-key', s],
  }))(`sk-ant-admin01-${fake(51, 60)}`),
  ((s) => ({
    format: 'Google OAuth client secret',
    secret: s,
    prose: `OAuth client GOCSPX-${s} is disabled`,
    header: ['x-client-secret', `GOCSPX-${s}`],
  }))(fake(52, 28)),
  ((s) => ({
    format: 'Slack incoming webhook URL',
    secret: s,
    prose: `notify: POST https://hooks.slack.com/services/${s} failed`,
    header: ['x-webhook', `https://hooks.slack.com/services/${s}`],
  }))(
    `T${fake(53, 8, 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789')}/B${fake(54, 10, 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789')}/${fake(55, 24)}`,
  ),
  ((s) => ({
    format: 'quoted password with a blank',
    secret: s,
    prose: `login failed: {"user":"svc","password":"${s}"}`,
    header: ['x-db-password', s],
  }))(`${fake(56, 9)} ${fake(57, 9)}`),
  ((s) => ({
    format: 'Azure storage account key in a connection string',
    secret: s,
    prose: `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${s};EndpointSuffix=core.windows.net`,
    header: ['x-ms-connection', `AccountKey=${s}`],
  }))(`${fake(58, 40, b64)}/${fake(59, 45, b64)}==`),
  ((s) => ({
    // A key that drew no digit (about one in a thousand): a hostile review found it kept after its key word.
    format: 'unprefixed key of letters only after a key word',
    secret: s,
    prose: `Unauthorized: invalid api key ${s} (check the key in your settings)`,
    header: ['Authorization', `Bearer ${s}`],
  }))(fake(61, 40, 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz')),
  ((s) => ({
    // The scan stops only at ASCII words: a hostile review found a key after a Chinese key word kept.
    format: 'key after a Chinese key word and a full-width colon',
    secret: s,
    prose: `调用失败：密钥：${s} 无效，请检查配置`,
    header: ['api-key', s],
  }))(fake(62, 32, hex)),
  ((s) => ({
    format: 'API key after a full-width colon',
    secret: s,
    prose: `鉴权失败 api key：${s}`,
    header: ['x-api-key', s],
  }))(fake(63, 32, hex)),
  ((s) => ({
    format: 'DigitalOcean token',
    secret: s,
    prose: `doctl: auth init failed for ${s}`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`dop_v1_${fake(64, 64, hex)}`),
  ((s) => ({
    format: 'SendGrid key',
    secret: s,
    prose: `mail hook refused ${s}`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`SG.${fake(65, 22)}.${fake(66, 43)}`),
  ((s) => ({
    format: 'Shopify access token',
    secret: s,
    prose: `shop webhook rejected ${s}`,
    header: ['X-Shopify-Access-Token', s],
  }))(`shpat_${fake(67, 32, hex)}`),
  // Issue 10, second hostile pass: each of these was kept before.
  ((s) => ({
    format: 'Discord bot token',
    secret: s,
    prose: `discord.py: improper token has been passed: ${s}`,
    header: ['Authorization', `Bot ${s}`],
  }))(discordToken(68)),
  ((s) => ({
    format: 'HTTP Digest response',
    secret: s,
    prose: `401 for Authorization: Digest username="svc", realm="api", nonce="${fake(71, 32, hex)}", uri="/v1/chat", qop=auth, nc=00000001, cnonce="${fake(72, 16, hex)}", response="${s}"`,
    header: ['Authorization', `Digest username="svc", realm="api", uri="/v1/chat", response="${s}"`],
  }))(fake(73, 32, hex)),
  ((s) => ({
    format: 'curl -u user:password',
    secret: s,
    prose: `command failed: curl -sS -u deploy:${s} https://api.example.com/v1/models (exit 22)`,
    header: ['x-debug-command', `curl --user deploy:${s} https://api.example.com/v1/models`],
  }))(fake(74, 16)),
  ((s) => ({
    format: 'mysql -p password',
    secret: s,
    prose: `mysql -h db.internal -u app -p${s} -e "select 1": ERROR 1045 (28000): Access denied for user 'app'`,
    header: ['x-debug-command', `mysql -u app -p${s}`],
  }))(fake(75, 14)),
  ((s) => ({
    format: 'PGPASSWORD environment assignment',
    secret: s,
    prose: `PGPASSWORD=${s} psql -h db.internal -U app: FATAL: password authentication failed`,
    header: ['x-env', `PGPASSWORD=${s}`],
  }))(fake(76, 14)),
  ((s) => ({
    format: 'key written as JSON escapes',
    secret: s,
    prose: `{"error":"invalid key","key":"${jsonEscaped(s)}"}`,
    header: ['x-api-key', jsonEscaped(s)],
  }))(`sk-proj-${fake(77, 40)}`),
  ((s) => ({
    format: '20-character key after a Chinese key word',
    secret: s,
    prose: `调用失败：令牌：${s} 已过期，请重新登录`,
    header: ['x-api-key', s],
  }))(fake(78, 20)),
  ((s) => ({
    format: '18-character key after a Korean key word',
    secret: s,
    prose: `인증 실패: 토큰: ${s} 이 만료되었습니다`,
    header: ['x-api-key', s],
  }))(fake(79, 18)),
  ((s) => ({
    format: '16-character key after a Japanese key word',
    secret: s,
    prose: `認証エラー: APIキー「${s}」が無効です`,
    header: ['x-api-key', s],
  }))(fake(80, 16)),
  ((s) => ({
    format: 'key of random letters with no key word',
    secret: s,
    prose: `upstream rejected ${s} (401)`,
    header: ['Authorization', `Bearer ${s}`],
  }))(fake(83, 40, letters)),
  ((s) => ({
    format: 'LangSmith key (lower-case hex after its prefix)',
    secret: s,
    prose: `Failed to send trace: 403 Forbidden for key ${s}`,
    header: ['x-api-key', s],
  }))(`lsv2_pt_${fake(84, 32, hex)}_${fake(85, 10, hex)}`),
  ((s) => ({
    format: 'age secret key',
    secret: s,
    prose: `sops: failed to decrypt with identity ${s}`,
    header: ['Authorization', `Bearer ${s}`],
  }))(`AGE-SECRET-KEY-1${fake(86, 58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')}`),
];

/** Each format planted in each place evidence carries text: stderr, JSON and plain HTTP bodies, headers. */
export function envelopesOf(p: Planted): Array<{ place: string; envelope: EvidenceEnvelope }> {
  const [name, value] = p.header;
  return [
    { place: 'stderr', envelope: { kind: 'stderr', agent: 'claude-code', text: `Error: ${p.prose}\n` } },
    {
      place: 'JSON body',
      envelope: {
        kind: 'http',
        status: 401,
        provider: 'azure',
        headers: {},
        body: JSON.stringify({ statusCode: 401, message: p.prose, error: { message: p.prose } }),
      },
    },
    {
      place: 'plain body',
      envelope: { kind: 'http', status: 403, provider: 'openai', headers: {}, body: p.prose },
    },
    {
      place: `${name} header`,
      envelope: {
        kind: 'http',
        status: 401,
        provider: 'anthropic',
        headers: { [name]: value, 'retry-after': '30' },
        body: '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
      },
    },
  ];
}

export const plantedCases = planted.flatMap((p) => envelopesOf(p).map((c) => ({ ...c, planted: p })));

/** The secrets (those under 12 characters whole) and every 12-character fragment of them. */
export const fragmentLength = 12;
const fragments = new Map<string, string>();
for (const p of planted) {
  if (p.secret.length <= fragmentLength) fragments.set(p.secret, p.format);
  for (let i = 0; i + fragmentLength <= p.secret.length; i++) {
    fragments.set(p.secret.slice(i, i + fragmentLength), p.format);
  }
}

/**
 * Every planted format found in `text` (latin1: a database file is bytes, secrets are ASCII), as it is and with its
 * JSON escapes decoded (`\u0041` is `A`: a key that comes out escaped comes out).
 */
export function leaksIn(text: string): string[] {
  const found = new Set<string>();
  for (const form of [text, decodeEscapes(text)]) {
    for (let i = 0; i + fragmentLength <= form.length; i++) {
      const format = fragments.get(form.slice(i, i + fragmentLength));
      if (format !== undefined) found.add(format);
    }
    for (const p of planted)
      if (p.secret.length < fragmentLength && form.includes(p.secret)) found.add(p.format);
  }
  return [...found].sort();
}

function decodeEscapes(text: string): string {
  return text.replace(/\\+u([0-9a-fA-F]{4})/g, (_m, code: string) => String.fromCharCode(parseInt(code, 16)));
}
