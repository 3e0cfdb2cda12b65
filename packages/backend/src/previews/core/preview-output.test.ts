import { describe, expect, it } from 'vitest';
import { createPreviewOutput } from './preview-output.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('a preview command’s output', () => {
  it('drops colours and keeps a redrawn line as its last state', () => {
    const output = createPreviewOutput(1024);
    output.push(bytes('\u001b[32m  VITE v5.0.0\u001b[39m  ready\n'));
    output.push(bytes('building 10%\rbuilding 100%\r\n\u001b]0;title\u0007done\n'));
    expect(output.lastLines()).toEqual(['  VITE v5.0.0  ready', 'building 100%', 'done']);
    expect(output.text().text).not.toContain('\u001b');
  });

  it('keeps the newest bytes at a line boundary and says it cut', () => {
    const output = createPreviewOutput(40);
    for (let index = 0; index < 10; index++) output.push(bytes(`line ${index}\n`));
    const { text, isCut } = output.text();
    expect(isCut).toBe(true);
    expect(text.length).toBeLessThanOrEqual(40);
    expect(text.startsWith('line ')).toBe(true);
    expect(output.lastLines(2)).toEqual(['line 8', 'line 9']);
  });

  it('decodes a character split across chunks', () => {
    const output = createPreviewOutput(1024);
    const encoded = bytes('café ✓\n');
    output.push(encoded.subarray(0, 4));
    output.push(encoded.subarray(4));
    expect(output.lastLines()).toEqual(['café ✓']);
  });
});
