import { useState, type SubmitEvent } from 'react';
import { ApiError, api } from './api.ts';

/**
 * Shown when the login is missing, wrong or expired. The form posts the token to `/login` (in the body, never in
 * a URL a proxy would log); the server answers with the session, and the app goes on.
 */
/** `ok`, `refused` (401) or `offline` (anything else): what the app shows after a login attempt. */
export async function logInWith(token: string): Promise<'ok' | 'refused' | 'offline'> {
  try {
    await api.logIn(token);
    return 'ok';
  } catch (error) {
    return error instanceof ApiError && error.isUnauthorized ? 'refused' : 'offline';
  }
}

export function LoginScreen({ refused, onLoggedIn }: { refused: boolean; onLoggedIn: () => void }) {
  const [problem, setProblem] = useState<'refused' | 'offline' | undefined>(refused ? 'refused' : undefined);
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
