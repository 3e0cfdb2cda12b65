import { isLoopbackHost, PAIRING_LIFETIME_MS, type PairingLinkResponse } from '@catalyst/protocol';
import { useEffect, useRef, useState } from 'react';
import { api, describeError } from '../base/api.ts';
import { Dialog } from '../base/Dialog.tsx';
import { formatCountdown, pairingDeadline } from './countdown.ts';
import { drawQrCode } from './qr-code.ts';

/**
 * "Open on another device" (issue 29): a one-time link that signs another device in, as a QR code for a phone's
 * camera and as text to copy, with the time it has left. Each opening makes a new link; one that ran out is
 * replaced on request. Whoever opens the link is signed in, which the dialog says.
 */

interface Link extends PairingLinkResponse {
  readonly deadline: number;
}

export function OpenOnAnotherDevice({ onClose }: { onClose: () => void }) {
  const [link, setLink] = useState<Link>();
  const [error, setError] = useState<string>();
  const [round, setRound] = useState(0);

  useEffect(() => {
    let live = true;
    setLink(undefined);
    setError(undefined);
    api.createPairing().then(
      (made) => {
        const deadline = pairingDeadline({
          expiresAt: made.expiresAt,
          receivedAt: Date.now(),
          lifetimeMs: PAIRING_LIFETIME_MS,
        });
        if (live) setLink({ ...made, deadline });
      },
      (caught: unknown) => {
        if (live) setError(describeError(caught));
      },
    );
    return () => {
      live = false;
    };
  }, [round]);

  return (
    <Dialog title="Open on another device" onClose={onClose}>
      <p className="muted">
        Scan this code with your phone’s camera, or open the link on the other device. Whoever opens it is
        signed in to Catalyst as you: show it only to your own devices.
      </p>
      {error === undefined ? null : (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {link === undefined ? (
        error === undefined ? (
          <p className="muted">Making a link…</p>
        ) : null
      ) : (
        <PairingLink
          link={link}
          onRenew={() => {
            setRound((value) => value + 1);
          }}
        />
      )}
      <div className="actions">
        <button type="button" data-autofocus onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}

function PairingLink({ link, onRenew }: { link: Link; onRenew: () => void }) {
  const remainingMs = useRemaining(link.deadline);
  const isExpired = remainingMs <= 0;
  const drawing = drawQrCode(link.url);
  return (
    <div className="pairing">
      {isExpired ? (
        <p role="status">
          This link has expired.{' '}
          <button type="button" onClick={onRenew}>
            Make a new link
          </button>
        </p>
      ) : (
        <>
          <svg
            className="pairing-qr"
            role="img"
            aria-label="QR code of the link below"
            viewBox={`0 0 ${String(drawing.extent)} ${String(drawing.extent)}`}
            shapeRendering="crispEdges"
          >
            <rect width={drawing.extent} height={drawing.extent} fill="#fff" />
            <path d={drawing.path} fill="#000" />
          </svg>
          <p className="pairing-expiry">
            Works once, for <span className="pairing-countdown">{formatCountdown(remainingMs)}</span> more.
          </p>
          <CopyableLink url={link.url} />
        </>
      )}
      {isLoopbackHost(new URL(link.url).hostname) ? (
        <p className="hint">
          Catalyst listens on this computer only, so a phone cannot open this link. To reach it from your
          phone, start Catalyst on your network’s address or behind CATALYST_PUBLIC_URL (docs/operations.md,
          “Open Catalyst on a phone”).
        </p>
      ) : null}
    </div>
  );
}

function CopyableLink({ url }: { url: string }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'copied' | 'select'>();
  const copy = async () => {
    try {
      // Only in a secure context (https, or this machine): over plain http on a network there is no clipboard API.
      await navigator.clipboard.writeText(url);
      setCopied('copied');
    } catch {
      input.current?.select();
      setCopied('select');
    }
  };
  return (
    <div className="pairing-link">
      <label htmlFor="pairing-link">Link</label>
      <div className="pairing-link-row">
        <input
          id="pairing-link"
          ref={input}
          readOnly
          value={url}
          onFocus={(event) => {
            event.currentTarget.select();
          }}
        />
        <button type="button" onClick={() => void copy()}>
          Copy link
        </button>
      </div>
      <p className="hint" role="status">
        {copied === 'copied' ? 'Copied.' : copied === 'select' ? 'Selected: copy it with your keyboard.' : ''}
      </p>
    </div>
  );
}

/** What is left until `deadline`, counted down each second; 0 once past it. */
function useRemaining(deadline: number): number {
  const [now, setNow] = useState(() => Date.now());
  const isRunning = now < deadline;
  useEffect(() => {
    if (!isRunning) return;
    const timer = setInterval(() => {
      setNow(Date.now());
    }, 1000);
    return () => {
      clearInterval(timer);
    };
  }, [isRunning]);
  return Math.max(0, deadline - now);
}
