import { useEffect, useId, useState } from 'react';
import './default-host.css';
import { api, describeError } from '../base/api.ts';
import { AppLink } from '../base/AppLink.tsx';
import {
  defaultHostOf,
  hostWords,
  readinessOf,
  type DefaultHostReadiness,
} from './default-host-readiness.ts';

type Shown =
  | { readonly kind: 'asking' }
  | { readonly kind: 'checking'; readonly host: string }
  | { readonly kind: 'known'; readonly readiness: DefaultHostReadiness }
  | { readonly kind: 'failed'; readonly message: string };

/**
 * The first screen's word on where new ideas run (issue 40, item 5): whether the default host can run claude, login
 * included, with what to do when it cannot, and "Add your VM". The host's last check is read first; only a host
 * never checked since Catalyst started is checked now (what the Hosts page's "Check" does, kept as its last check).
 */
export function DefaultHostStatus() {
  const headingId = useId();
  const [shown, setShown] = useState<Shown>({ kind: 'asking' });

  useEffect(() => {
    let isCurrent = true;
    const show = (next: Shown) => {
      if (isCurrent) setShown(next);
    };
    findReadiness((host) => {
      show({ kind: 'checking', host });
    }).then(
      (readiness) => {
        show(
          readiness === undefined
            ? { kind: 'failed', message: 'No host is configured.' }
            : { kind: 'known', readiness },
        );
      },
      (caught: unknown) => {
        show({ kind: 'failed', message: describeError(caught) });
      },
    );
    return () => {
      isCurrent = false;
    };
  }, []);

  return (
    <section className="panel default-host" aria-labelledby={headingId}>
      <h2 id={headingId}>Where new ideas run</h2>
      <ReadinessText shown={shown} />
      <p className="actions">
        <AppLink href="/hosts?add" className="button-link primary">
          Add your VM
        </AppLink>
        <AppLink href="/hosts" className="nav-link">
          All hosts
        </AppLink>
      </p>
    </section>
  );
}

function ReadinessText({ shown }: { shown: Shown }) {
  switch (shown.kind) {
    case 'asking':
      return <p className="muted">Asking the default host…</p>;
    case 'checking':
      return <p className="muted">Checking whether {shown.host} can run claude…</p>;
    case 'failed':
      return (
        <p className="form-error">Could not tell whether the default host can run claude: {shown.message}</p>
      );
    case 'known':
      return <ReadinessSentence readiness={shown.readiness} />;
  }
}

function ReadinessSentence({ readiness }: { readiness: DefaultHostReadiness }) {
  const where = hostWords(readiness.host);
  switch (readiness.kind) {
    case 'ready':
      return (
        <p className="health-ok">
          New ideas run on {where}: {readiness.claude} is there and logged in. Capture the first one with “New
          idea”.
        </p>
      );
    case 'not-ready':
      return (
        <p className="notice notice-bad" role="note">
          {where} cannot run claude yet: {readiness.reason}.
          {readiness.fix === undefined ? '' : ` ${readiness.fix}`} Or add your VM and make it the default.
        </p>
      );
    case 'unknown':
      return (
        <p className="muted">
          New ideas run on {where}; its last check did not tell whether claude can run there.
        </p>
      );
  }
}

/**
 * The list's health of the default host when it already says "not ready" (unreachable, no claude); else a last check
 * that found it ready; else a check now: a host not checked yet, or found not ready before (maybe fixed since).
 */
async function findReadiness(onChecking: (host: string) => void): Promise<DefaultHostReadiness | undefined> {
  const host = defaultHostOf(await api.hosts());
  if (host === undefined) return undefined;
  const fromList = readinessOf(host, null);
  if (fromList.kind === 'not-ready') return fromList;
  const last = await api.lastHostCheck(host.name);
  if (last?.isReady === true) return readinessOf(host, last);
  onChecking(host.name);
  return readinessOf(host, await api.checkHost(host.name));
}
