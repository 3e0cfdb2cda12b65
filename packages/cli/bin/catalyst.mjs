#!/usr/bin/env node
// The `catalyst` command. The workspace runs TypeScript source with no build step (scripts/start runs the backend
// with tsx), so this loads the entry through tsx's scoped import. Paths come from this file's own URL, which Node
// resolves through symlinks, so a link on PATH works from any directory; tsx is pinned to this package's tsconfig,
// so a tsconfig.json in the caller's directory changes nothing.
import { URL, fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const tsconfig = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
const entry = await tsImport('../src/main.ts', { parentURL: import.meta.url, tsconfig });
await entry.main(process.argv.slice(2));
