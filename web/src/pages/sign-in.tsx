import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../api.js';

const maxTokenLength = 512;

/**
 * What a refused sign-in says, by the `?error=` the sign-in link sends a browser back with. A Map, not an object: a
 * link with `?error=__proto__` (or `constructor`) must name no problem, not hand React an object it cannot render.
 */
const invalidToken = 'That token is not valid. Check it and try again.';
const tooManyRefused =
  'Too many tokens were refused from this address. Wait a minute, then try again with the right one.';
const linkProblems: ReadonlyMap<string, string> = new Map([
  ['invalid_token', invalidToken],
  ['too_many_refused_tokens', tooManyRefused],
]);

/**
 * Signing in trades a token for the session cookie (`POST /v1/sign-in`); the token never goes into the address
 * bar. `/?token=TOKEN` (the link `recourse serve` prints) does the same exchange on the server and lands here
 * with `?error=invalid_token` when the token is unknown (`too_many_refused_tokens` when this address must wait). `ended`: a signed-in page was refused (401), which is said,
 * since the request that met it was not carried out.
 */
export function SignIn(props: { readonly ended: boolean; readonly onSignedIn: () => void }) {
  const initialProblem =
    linkProblems.get(new URLSearchParams(window.location.search).get('error') ?? '') ?? null;
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string | null>(initialProblem);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (token.trim() === '') {
      setProblem('Enter the access token you were given.');
      return;
    }
    // The service's own limit (docs/server.md): said here in words rather than as its validator's message.
    if (token.trim().length > maxTokenLength) {
      setProblem(
        `An access token is at most ${maxTokenLength} characters; this has ${token.trim().length}. Check what you pasted.`,
      );
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      await api('POST', '/v1/sign-in', { token: token.trim() });
      setToken('');
      props.onSignedIn();
    } catch (error) {
      setProblem(
        error instanceof ApiError && error.status === 401
          ? invalidToken
          : error instanceof ApiError && error.status === 429
            ? tooManyRefused
            : error instanceof Error
              ? error.message
              : 'Signing in failed.',
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in" id="main">
      <h1>Sign in to Recourse</h1>
      <p>
        Paste the access token your Recourse service gave you. <code>recourse serve</code> prints a link that
        signs you in directly; tokens are set with <code>RECOURSE_TOKENS</code> or <code>--tokens-file</code>.
      </p>
      {props.ended && (
        <p className="banner error" role="alert">
          Your session ended: it expired, or its access token was revoked. What you were doing was not done.
          Sign in again to go back to it.
        </p>
      )}
      <form onSubmit={(e) => void submit(e)} noValidate>
        <label htmlFor="token">Access token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="current-password"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          aria-invalid={problem !== null}
          aria-describedby={problem === null ? undefined : 'token-problem'}
        />
        {problem !== null && (
          <p id="token-problem" className="field-error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
