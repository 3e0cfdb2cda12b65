import { api, ApiError, UNAUTHORIZED_EVENT } from '../base/api.ts';
import { clearSessionKey } from '../base/session-key.ts';

/**
 * Logs this browser out (issue 25): the server ends the session and clears the cookie, the page forgets its key,
 * and the app shows its login screen (the same event a 401 raises). A session that had already ended counts as
 * logged out; any other failure is thrown, and the page stays as it was.
 */
export async function logOutHere(): Promise<void> {
  try {
    await api.logOut();
  } catch (error) {
    if (!(error instanceof ApiError && error.isUnauthorized)) throw error;
    // The request already raised the login screen's event.
    clearSessionKey();
    return;
  }
  dispatchEvent(new Event(UNAUTHORIZED_EVENT));
}
