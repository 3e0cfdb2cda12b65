import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

/**
 * What a page must never do: throw, log an error to the console, or show a person a stack trace. Network refusals
 * a test causes on purpose (a 401 before logging in) are console errors in Chromium too; a test names the ones it
 * expects.
 */
export interface PageProblems {
  /** Uncaught exceptions and console errors, in order, except the expected ones. */
  readonly seen: string[];
}

export function watchPage(page: Page, expectedConsole: readonly RegExp[] = []): PageProblems {
  const seen: string[] = [];
  page.on('pageerror', (error) => {
    seen.push(`page error: ${error.stack ?? error.message}`);
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    if (expectedConsole.some((pattern) => pattern.test(text))) return;
    const { url, lineNumber, columnNumber } = message.location();
    seen.push(`console error: ${text} (${url}:${lineNumber}:${columnNumber})`);
  });
  return { seen };
}

/** A stack frame (`at f (file.js:1:2)`), or an exception's name and message as JS prints them. */
const STACK_FRAME = /at .*\(.*:\d+:\d+\)/;
const ERROR_DUMP = /(^|\s)([A-Z][a-zA-Z]*)?Error: /;

/** The lines of the page's visible text that look like a stack trace or an error dump. */
export async function findStackTraces(page: Page): Promise<string[]> {
  const text = await page.locator('body').innerText();
  return text.split('\n').filter((line) => STACK_FRAME.test(line) || ERROR_DUMP.test(line));
}

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
export const screenshotDir = join(repoRoot, 'artifacts', 'screenshots');

function slug(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
}

/** `<repo>/artifacts/screenshots/<file>-<test>.png`, kept by CI. */
export async function saveScreenshot(page: Page, file: string, test: string): Promise<string> {
  await mkdir(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${slug(file)}-${slug(test)}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
