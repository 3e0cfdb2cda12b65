import './zod-setup.ts';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { takeLinkToken } from './app/session-key.ts';
import './styles.css';
import './transcript/transcript.css';
import './autopilot/autopilot.css';
import './preview/preview.css';

// Before the first render: StrictMode runs state initialisers twice, and the link's token can be read only once.
const linkToken = takeLinkToken();
const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App {...(linkToken === undefined ? {} : { linkToken })} />
    </StrictMode>,
  );
}
