import { AppLink } from '../base/AppLink.tsx';
import { navigate } from '../base/router.ts';
import { NoticePage } from '../base/NoticePage.tsx';

/** What the page of an idea that is no more says: deleted (here, in another tab or on another device). */
export function IdeaDeleted() {
  return (
    <main className="centered">
      <div className="panel" role="alert">
        <h1>This idea was deleted</h1>
        <p>Its conversation and its project are gone.</p>
        <AppLink href="/">Back to your ideas</AppLink>
      </div>
    </main>
  );
}

/** An idea that could not be read (not a deletion): why, and the way back. */
export function IdeaUnreadable({ error }: { error: string }) {
  return (
    <NoticePage
      title="This idea cannot be opened"
      action={{
        label: 'Back to your ideas',
        onClick: () => {
          navigate('/');
        },
      }}
    >
      <p role="alert">{error}</p>
    </NoticePage>
  );
}
