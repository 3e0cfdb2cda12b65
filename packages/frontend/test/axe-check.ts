import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AxeResults, RunOptions } from 'axe-core';
import type { Page } from 'playwright-core';

/**
 * axe-core in a page of the built app. The page's CSP (`default-src 'self'`) refuses an injected <script>, but
 * `page.evaluate` runs through the DevTools protocol, which CSP does not govern: the source goes in that way, once
 * per document, and defines `window.axe`.
 */

/** The WCAG 2.0 and 2.1 rules at levels A and AA. */
const RUN_OPTIONS: RunOptions = {
  runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
  resultTypes: ['violations'],
};

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let axeSource: Promise<string> | undefined;

interface InjectedAxe {
  run(context: Document, options: RunOptions): Promise<AxeResults>;
}

/**
 * Runs axe on the whole document; resolves with one line per violation, empty when there is none: its id, impact
 * and help, then each offending element's selector and axe's summary of what is wrong with it (for a contrast
 * failure, the two colours and the ratio).
 */
export async function findAxeViolations(page: Page): Promise<string[]> {
  axeSource ??= readFile(axePath, 'utf8');
  const source = await axeSource;
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(source);
  // axe leaves a text's contrast undecided when another element lies over it, as the sticky composer does over
  // the transcript: while it runs, the window is as tall as the page, so nothing is scrolled under anything.
  const viewport = page.viewportSize();
  const pageHeight = await page.evaluate(() => document.documentElement.scrollHeight);
  if (viewport !== null) await page.setViewportSize({ width: viewport.width, height: pageHeight });
  try {
    return formatViolations(await runAxe(page));
  } finally {
    if (viewport !== null) await page.setViewportSize(viewport);
    // The page lays itself out for the old window again before anyone looks at it (a screenshot, the next step).
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    );
  }
}

interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: { selector: string; summary: string }[];
}

function runAxe(page: Page): Promise<Violation[]> {
  return page.evaluate(async (options) => {
    // Defined by the source `findAxeViolations` evaluated first; axe-core's own types describe it.
    const { axe } = window as unknown as { axe: InjectedAxe };
    const results = await axe.run(document, options);
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? 'unknown',
      help: violation.help,
      nodes: violation.nodes.map((node) => ({
        selector: node.target.join(' '),
        summary: node.failureSummary ?? '',
      })),
    }));
  }, RUN_OPTIONS);
}

function formatViolations(violations: Violation[]): string[] {
  return violations.map(({ id, impact, help, nodes }) => {
    const elements = nodes.map(({ selector, summary }) => `    ${selector}\n      ${oneLine(summary)}`);
    return `${id} (${impact}): ${help}\n${elements.join('\n')}`;
  });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
