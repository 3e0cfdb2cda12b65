import { useState, type SubmitEvent } from 'react';
import { ApiError, api } from '../base/api.ts';

/**
 * Shown when the login is missing, wrong or expired, or a pairing link was refused. The form posts the token to
 * `/login` (in the body, never in a URL a proxy would log); the server answers with the session, and the app goes on.
 */

export type LoginProblem = 'refused' | 'pairing_refused' | 'offline';

/**
 * `ok`, `refused` (401, or a token the contract's schema refuses: 400) or `offline` (anything else): what the app
 * shows after a login attempt.
 */
export async function logInWith(token: string): Promise<'ok' | 'refused' | 'offline'> {
  try {
    await api.logIn(token);
    return 'ok';
  } catch (error) {
    return isRefusal(error) ? 'refused' : 'offline';
  }
}

/** The same for the code of a pairing link `/pair#code=…` (issue 29). */
export async function pairWith(code: string): Promise<'ok' | 'pairing_refused' | 'offline'> {
  try {
    await api.redeemPairing(code);
    return 'ok';
  } catch (error) {
    return isRefusal(error) ? 'pairing_refused' : 'offline';
  }
}

function isRefusal(error: unknown): boolean {
  return error instanceof ApiError && (error.isUnauthorized || error.code === 'INVALID_ARGUMENT');
}

export function LoginScreen({
  initialProblem,
  onLoggedIn,
}: {
  initialProblem?: LoginProblem | undefined;
  onLoggedIn: () => void;
}) {
  const [problem, setProblem] = useState<LoginProblem | undefined>(initialProblem);
  const [isBusy, setBusy] = useState(false);

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const token = new FormData(event.currentTarget).get('token');
    if (typeof token !== 'string' || isBusy) return;
    setBusy(true);
    void logInWith(token).then((outcome) => {
      setBusy(false);
      if (outcome === 'ok') onLoggedIn();
      else setProblem(outcome);
    });
  };

  return (
    <main className="centered">
      <form className="panel login" method="post" action="/login" onSubmit={submit}>
        <h1>Log in to Catalyst</h1>
        {problem === 'refused' ? (
          <p className="form-error" role="alert">
            That token was not accepted. Check that you copied the whole link.
          </p>
        ) : null}
        {problem === 'pairing_refused' ? (
          <p className="form-error" role="alert">
            This pairing link was already used or has expired: make a new one on your computer, with “Open on
            another device” on the ideas page.
          </p>
        ) : null}
        {problem === 'offline' ? (
          <p className="form-error" role="alert">
            Catalyst cannot be reached. Is it still running?
          </p>
        ) : null}
        <p>
          Open the login link that <code>./scripts/start</code> printed in its terminal, or paste the token
          from <code>~/.config/catalyst/token</code> here.
        </p>
        <label htmlFor="login-token">Access token</label>
        <input
          id="login-token"
          name="token"
          type="password"
          autoComplete="current-password"
          required
          minLength={1}
          maxLength={1024}
        />
        <button type="submit" className="primary" disabled={isBusy}>
          Log in
        </button>
      </form>
    </main>
  );
}
