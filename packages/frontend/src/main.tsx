import './zod-setup.ts';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { takeLinkToken, takePairingCode } from './base/session-key.ts';
import { isOfflineShell } from './shell/offline-shell.ts';
import { OfflinePage } from './shell/OfflinePage.tsx';
import { registerServiceWorker } from './shell/register-service-worker.ts';
import './styles.css';
import './transcript/transcript.css';
import './autopilot/autopilot.css';
import './preview/preview.css';

const root = document.getElementById('root');
if (root && isOfflineShell()) {
  // The service worker's answer to a page load that found no Catalyst: only the offline page, which retries.
  createRoot(root).render(
    <StrictMode>
      <OfflinePage />
    </StrictMode>,
  );
} else if (root) {
  // Before the first render: StrictMode runs state initialisers twice, and a link's token or code can be read only once.
  const linkToken = takeLinkToken();
  const pairingCode = takePairingCode();
  createRoot(root).render(
    <StrictMode>
      <App
        {...(linkToken === undefined ? {} : { linkToken })}
        {...(pairingCode === undefined ? {} : { pairingCode })}
      />
    </StrictMode>,
  );
  registerServiceWorker();
}
