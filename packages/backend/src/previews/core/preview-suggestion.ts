import { z } from 'zod';
import type { PreviewSuggestion } from '@catalyst/protocol';

/**
 * What the project's own files propose as its preview (issue 14): a `package.json` script that starts a dev server
 * (`dev`, `start`, `serve`, `preview`, in that order), or a Python web framework named in `pyproject.toml`. The port
 * is the one the script names (`--port 8080`, `-p 8080`, `PORT=8080`), else the tool's default.
 */

const PackageJsonSchema = z.looseObject({ scripts: z.record(z.string(), z.string()).optional() });
const SCRIPT_NAMES = ['dev', 'start', 'serve', 'preview'] as const;

/** A tool's default port, by a word its command holds. First match wins. */
const DEFAULT_PORTS: readonly (readonly [RegExp, number])[] = [
  [/\bnext\b/, 3000],
  [/\bastro\b/, 4321],
  [/\bng serve\b/, 4200],
  [/\bparcel\b/, 1234],
  [/\bgatsby\b/, 8000],
  [/\bvite\b|\bsvelte-kit\b|\bvitepress\b/, 5173],
  [/\bwebpack(-dev-server| serve)\b|\bhttp-server\b|\bvue-cli-service serve\b/, 8080],
  [/\breact-scripts start\b|\bnuxt\b|\bremix\b|\bserve\b|\bnodemon\b|\bnode\b|\bexpress\b/, 3000],
  [/\bhttp\.server\b|\buvicorn\b|\bmanage\.py runserver\b/, 8000],
  [/\bflask\b/, 5000],
];

export function portNamedIn(command: string): number | undefined {
  const match = /(?:--port[= ]|-p[= ]?|\bPORT=)(\d{2,5})\b/.exec(command);
  const port = Number(match?.[1]);
  return port >= 1 && port <= 65_535 ? port : undefined;
}

function defaultPort(command: string): number | undefined {
  return DEFAULT_PORTS.find(([pattern]) => pattern.test(command))?.[1];
}

export function suggestFromPackageJson(text: string): PreviewSuggestion | undefined {
  let scripts: Record<string, string> | undefined;
  try {
    scripts = PackageJsonSchema.parse(JSON.parse(text)).scripts;
  } catch {
    return undefined;
  }
  for (const name of SCRIPT_NAMES) {
    const script = scripts?.[name];
    if (script === undefined) continue;
    const port = portNamedIn(script) ?? defaultPort(script);
    if (port === undefined) continue;
    const command = name === 'start' ? 'npm start' : `npm run ${name}`;
    return { command, port, source: `package.json script "${name}": ${script.slice(0, 120)}` };
  }
  return undefined;
}

const PYTHON_SERVERS: readonly (readonly [RegExp, PreviewSuggestion])[] = [
  [
    /\bdjango\b/i,
    { command: 'python3 manage.py runserver 8000', port: 8000, source: 'pyproject.toml: Django' },
  ],
  [
    /\bfastapi\b|\buvicorn\b/i,
    { command: 'uvicorn main:app --port 8000', port: 8000, source: 'pyproject.toml: FastAPI' },
  ],
  [/\bflask\b/i, { command: 'flask run --port 5000', port: 5000, source: 'pyproject.toml: Flask' }],
];

export function suggestFromPyproject(text: string): PreviewSuggestion | undefined {
  return PYTHON_SERVERS.find(([pattern]) => pattern.test(text))?.[1];
}
