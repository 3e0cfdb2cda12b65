import { useEffect, useRef, useState } from 'react';
import { ApiError, UNAUTHORIZED_EVENT, api } from '../base/api.ts';
import { Connection } from './connection.ts';
import { ConnectionContext } from './connection-context.ts';
import { ErrorBoundary } from '../ErrorBoundary.tsx';
import { createBrowserPushPorts } from '../notify/browser-push-ports.ts';
import { PushContext } from '../notify/push-context.ts';
import { PushDevice } from '../notify/push-device.ts';
import { HostsPage } from '../hosts/HostsPage.tsx';
import { IdeaPage } from './IdeaPage.tsx';
import { IdeasList } from './IdeasList.tsx';
import { LoginScreen, logInWith, pairWith } from './LoginScreen.tsx';
import { NoticePage } from '../base/NoticePage.tsx';
import { UpdateBanner } from './UpdateBanner.tsx';
import { navigate, routeOf, usePath } from '../base/router.ts';
import { sessionProtocols } from '../base/session-key.ts';

type Login = 'logging_in' | 'checking' | 'ok' | 'missing' | 'refused' | 'pairing_refused' | 'offline';

/**
 * The printed link's token, or a pairing link's code (issue 29), is swapped for a session first; the old
 * `/login?token=…` lands on `/?login=refused`.
 */
function initialLogin(credential: string | undefined): Login {
  if (credential !== undefined) return 'logging_in';
  return new URLSearchParams(location.search).get('login') === 'refused' ? 'refused' : 'checking';
}

async function isLoggedIn(): Promise<boolean> {
  try {
    await api.checkLogin();
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.isUnauthorized) return false;
    throw error;
  }
}

export function App({ linkToken, pairingCode }: { linkToken?: string; pairingCode?: string }) {
  const [login, setLogin] = useState<Login>(() => initialLogin(pairingCode ?? linkToken));
  const [connection, setConnection] = useState<Connection>();
  const [push] = useState(() => new PushDevice(createBrowserPushPorts()));
  // One attempt, whatever runs the effect again (StrictMode does in development): a pairing code works only once.
  const attempt = useRef<Promise<Login>>(undefined);

  useEffect(() => {
    if (login !== 'logging_in') return;
    if (pairingCode !== undefined) attempt.current ??= pairWith(pairingCode);
    else if (linkToken !== undefined) attempt.current ??= logInWith(linkToken);
    if (attempt.current === undefined) return;
    let live = true;
    void attempt.current.then((next) => {
      if (live) setLogin(next);
    });
    return () => {
      live = false;
    };
  }, [login, linkToken, pairingCode]);

  useEffect(() => {
    if (login !== 'checking') return;
    let live = true;
    isLoggedIn().then(
      (ok) => {
        if (live) setLogin(ok ? 'ok' : 'missing');
      },
      () => {
        if (live) setLogin('offline');
      },
    );
    return () => {
      live = false;
    };
  }, [login]);

  useEffect(() => {
    const onUnauthorized = () => {
      setLogin((current) => (current === 'ok' ? 'missing' : current));
    };
    addEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
    return () => {
      removeEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
    };
  }, []);

  useEffect(() => {
    if (login !== 'ok') return;
    const created = new Connection({ checkLogin: isLoggedIn, protocols: sessionProtocols });
    const stop = created.onState((state) => {
      if (state === 'unauthorized') setLogin('missing');
      // Back after a drop, perhaps to an upgraded Catalyst: one answer carries the build it serves (issue 39).
      if (state === 'open') void isLoggedIn().catch(() => false);
    });
    setConnection(created);
    return () => {
      stop();
      created.close();
      setConnection(undefined);
    };
  }, [login]);

  // Once logged in: a subscription the browser still holds is kept on this session (push-device.ts).
  useEffect(() => {
    if (login === 'ok') void push.start();
  }, [login, push]);

  if (login === 'checking' || login === 'logging_in') return <main className="centered" aria-busy="true" />;
  if (login === 'missing' || login === 'refused' || login === 'pairing_refused') {
    return (
      <LoginScreen
        initialProblem={login === 'missing' ? undefined : login}
        onLoggedIn={() => {
          setLogin('ok');
        }}
      />
    );
  }
  if (login === 'offline') {
    return (
      <NoticePage
        title="Catalyst cannot be reached"
        action={{
          label: 'Try again',
          onClick: () => {
            setLogin('checking');
          },
        }}
      >
        <p>Is it still running? Start it again with ./scripts/start, then reload this page.</p>
      </NoticePage>
    );
  }
  if (connection === undefined) return <main className="centered" aria-busy="true" />;
  return (
    <ConnectionContext.Provider value={connection}>
      <PushContext.Provider value={push}>
        <UpdateBanner />
        <Routes />
      </PushContext.Provider>
    </ConnectionContext.Provider>
  );
}

/** A page that failed to render: words and a way on, never a stack trace; a new address starts afresh. */
function PageFailed() {
  return (
    <NoticePage
      title="This page could not be shown"
      role="alert"
      action={{
        label: 'Reload',
        onClick: () => {
          location.reload();
        },
      }}
    >
      <p>Nothing was lost: what Claude said is kept on the host. Reload to try again.</p>
    </NoticePage>
  );
}

function Routes() {
  const path = usePath();
  return (
    <ErrorBoundary key={path} fallback={<PageFailed />}>
      <Route path={path} />
    </ErrorBoundary>
  );
}

function Route({ path }: { path: string }) {
  const route = routeOf(path);
  switch (route.name) {
    case 'ideas':
      return <IdeasList />;
    case 'idea':
      return <IdeaPage key={route.ideaId} ideaId={route.ideaId} />;
    case 'hosts':
      return <HostsPage />;
    case 'not_found':
      return (
        <NoticePage
          title="Nothing here"
          action={{
            label: 'Go to your ideas',
            onClick: () => {
              navigate('/');
            },
          }}
        >
          <p>This address is not a page of Catalyst.</p>
        </NoticePage>
      );
  }
}
