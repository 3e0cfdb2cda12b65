/**
 * Shown when the login cookie is missing, wrong or expired. The form is a plain GET to `/login`, the same link
 * Catalyst prints at start-up: the server checks the token, sets the HttpOnly cookie and sends the browser back.
 */
export function LoginScreen({ refused }: { refused: boolean }) {
  return (
    <main className="centered">
      <form className="panel login" method="get" action="/login">
        <h1>Log in to Catalyst</h1>
        {refused ? (
          <p className="form-error" role="alert">
            That token was not accepted. Check that you copied the whole link.
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
        <button type="submit" className="primary">
          Log in
        </button>
      </form>
    </main>
  );
}
