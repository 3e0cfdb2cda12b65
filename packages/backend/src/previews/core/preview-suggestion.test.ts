import { describe, expect, it } from 'vitest';
import { portNamedIn, suggestFromPackageJson, suggestFromPyproject } from './preview-suggestion.ts';

describe('the preview a project proposes', () => {
  it('takes the first dev-server script, with the port it names or its tool’s default', () => {
    expect(suggestFromPackageJson(JSON.stringify({ scripts: { build: 'vite build', dev: 'vite' } }))).toEqual(
      {
        command: 'npm run dev',
        port: 5173,
        source: 'package.json script "dev": vite',
      },
    );
    expect(
      suggestFromPackageJson(JSON.stringify({ scripts: { start: 'next start -p 4000' } })),
    ).toMatchObject({
      command: 'npm start',
      port: 4000,
    });
    expect(
      suggestFromPackageJson(JSON.stringify({ scripts: { dev: 'PORT=8123 node server.js' } })),
    ).toMatchObject({
      port: 8123,
    });
  });

  it('proposes nothing for a package.json without a server script, or one that is no JSON', () => {
    expect(suggestFromPackageJson(JSON.stringify({ scripts: { test: 'vitest' } }))).toBeUndefined();
    expect(suggestFromPackageJson('{ not json')).toBeUndefined();
    expect(suggestFromPackageJson(JSON.stringify({ scripts: 'dev' }))).toBeUndefined();
  });

  it('reads a port from --port, -p and PORT=, and nothing else', () => {
    expect(portNamedIn('vite --port=3001')).toBe(3001);
    expect(portNamedIn('serve -p 9000')).toBe(9000);
    expect(portNamedIn('webpack serve')).toBeUndefined();
    expect(portNamedIn('x --port 99999')).toBeUndefined();
  });

  it('knows the Python frameworks', () => {
    expect(suggestFromPyproject('[project]\ndependencies = ["fastapi>=0.110", "uvicorn"]')).toMatchObject({
      port: 8000,
    });
    expect(suggestFromPyproject('[project]\ndependencies = ["Flask"]')).toMatchObject({ port: 5000 });
    expect(suggestFromPyproject('[project]\nname = "cli-tool"')).toBeUndefined();
  });
});
