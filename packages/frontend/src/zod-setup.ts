import { z } from 'zod';

// The page's CSP forbids eval (`default-src 'self'`, no 'unsafe-eval'); zod's JIT probes for it with
// `new Function("")`, which the browser reports as a violation. Jitless parsing is the same parsing, without the
// generated fast path. Imported first by main.tsx, before any schema parses.
z.config({ jitless: true });
