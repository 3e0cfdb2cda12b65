import type { Locator, Page } from 'playwright-core';

/**
 * What a person does on an idea's page, by the accessible names of the UI contract (/tmp/notes/ui-contract.md
 * during development; the components carry the same names), never by CSS structure.
 */

/** From the ideas list: "New idea", fill the form, "Create idea"; resolves with the new idea's id from its URL. */
export async function createIdeaFromList(
  page: Page,
  idea: { title: string; description: string },
): Promise<string> {
  await page.getByRole('button', { name: 'New idea' }).click();
  await page.getByLabel('Title', { exact: true }).fill(idea.title);
  await page.getByLabel('Description', { exact: true }).fill(idea.description);
  await page.getByRole('button', { name: 'Create idea' }).click();
  await page.waitForURL(/\/ideas\/[^/]+$/);
  await ideaHeading(page, idea.title).waitFor();
  const id = /\/ideas\/([^/]+)$/.exec(new URL(page.url()).pathname)?.[1];
  if (id === undefined) throw new Error(`not an idea page: ${page.url()}`);
  return id;
}

export async function openIdea(page: Page, idea: { id: string; title: string }): Promise<void> {
  await page.goto(`/ideas/${idea.id}`);
  await ideaHeading(page, idea.title).waitFor();
}

export function ideaHeading(page: Page, title: string): Locator {
  return page.getByRole('heading', { level: 1, name: title, exact: true });
}

/** The first Build of an idea asks for confirmation: "Build", then "Start building". */
export async function chooseBuild(page: Page): Promise<void> {
  const mode = page.getByRole('radiogroup', { name: 'Mode' });
  await mode.getByRole('radio', { name: 'Build' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Start building' }).click();
  await page.getByRole('dialog').waitFor({ state: 'detached' });
  if (!(await mode.getByRole('radio', { name: 'Build' }).isChecked())) {
    throw new Error('"Start building" did not switch the composer to Build');
  }
}

export async function sendMessage(page: Page, message: string): Promise<void> {
  await page.getByLabel('Message', { exact: true }).fill(message);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

export function transcript(page: Page): Locator {
  return page.getByRole('log', { name: 'Transcript' });
}

export function claudeTexts(page: Page): Locator {
  return transcript(page).getByRole('article', { name: 'Claude', exact: true });
}

export function userMessages(page: Page): Locator {
  return transcript(page).getByRole('article', { name: 'You', exact: true });
}

export function toolCards(page: Page, tool: string): Locator {
  return transcript(page).getByRole('article', { name: `Tool: ${tool}`, exact: true });
}

export function runSummaries(page: Page): Locator {
  return transcript(page).getByRole('note', { name: 'Run summary', exact: true });
}

/**
 * Waits for a run summary whose outcome (its first word or words) is `outcome`: the only one, or with `nth`, the
 * nth of them (1-based), for a transcript that already holds earlier runs with the same outcome.
 */
export async function waitForRunSummary(page: Page, outcome: string, nth?: number): Promise<Locator> {
  const matching = runSummaries(page).filter({ hasText: new RegExp(`^\\s*${outcome}\\b`) });
  const summary = nth === undefined ? matching : matching.nth(nth - 1);
  await summary.waitFor();
  return summary;
}

/** The connection banner, while the WebSocket is down. */
export function reconnectingBanner(page: Page): Locator {
  return page.getByRole('status').filter({ hasText: /^\s*Reconnecting…\s*$/ });
}

/** The idea's status badge (its text is the status). */
export function statusBadge(page: Page, status: string): Locator {
  return page.getByText(status, { exact: true });
}

/**
 * Watches, from before a click on "Cancel run", whether the button turns into a disabled "Stopping…" before the
 * run summary appears. The state may last only as long as the cancel takes, so an observer in the page records
 * it instead of a poll that could miss it. For a page that shows no run summary yet.
 */
export async function watchForStopping(page: Page): Promise<() => Promise<boolean>> {
  const watcher = await page.evaluateHandle(() => {
    const seen = new Promise<boolean>((resolve) => {
      const observer = new MutationObserver(() => {
        const isStopping = [...document.querySelectorAll('button')].some(
          (button) => button.textContent.trim() === 'Stopping…' && button.disabled,
        );
        const hasEnded = document.querySelector('[role="note"][aria-label="Run summary"]') !== null;
        if (!isStopping && !hasEnded) return;
        observer.disconnect();
        resolve(isStopping);
      });
      observer.observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
    });
    return { seen };
  });
  return () => watcher.evaluate((state) => state.seen);
}

/** A tool call's permission card (permissionPolicy `ask`). */
export function permissionCard(page: Page, tool: string): Locator {
  return transcript(page).getByRole('region', { name: `Permission: ${tool}`, exact: true });
}

/** A tab of the idea's workspace (issue 31): Conversation (on a narrow screen), Changes, Files, Preview, Settings. */
export function workspaceTab(page: Page, name: string): Locator {
  return page.getByRole('tablist', { name: 'Workspace' }).getByRole('tab', { name, exact: true });
}

/** "Idea actions", then one of them: "Edit idea", "Delete idea". */
export async function chooseIdeaAction(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Idea actions', exact: true }).click();
  await page
    .getByRole('dialog', { name: 'Idea actions', exact: true })
    .getByRole('button', { name, exact: true })
    .click();
}

/** "Settings", then a policy's select; the change saves at once, and the panel says "Saved.". */
export async function choosePolicy(
  page: Page,
  policy: { label: 'Question policy' | 'Permission policy'; value: string },
): Promise<void> {
  const settings = page.getByRole('region', { name: 'Settings', exact: true });
  if (!(await settings.isVisible())) await workspaceTab(page, 'Settings').click();
  await settings.getByLabel(policy.label, { exact: true }).selectOption(policy.value);
  await settings
    .getByRole('status')
    .filter({ hasText: /^Saved\.$/ })
    .waitFor();
}

/** "Edit idea", new title and description, "Save"; resolves once the heading shows the new title. */
export async function editIdea(page: Page, idea: { title: string; description: string }): Promise<void> {
  await chooseIdeaAction(page, 'Edit idea');
  const form = page.getByRole('form', { name: 'Edit idea', exact: true });
  await form.getByLabel('Title', { exact: true }).fill(idea.title);
  await form.getByLabel('Description', { exact: true }).fill(idea.description);
  await form.getByRole('button', { name: 'Save', exact: true }).click();
  await ideaHeading(page, idea.title).waitFor();
  await form.waitFor({ state: 'detached' });
}

/** The link to an idea on the ideas list (its title). */
export function ideaLink(page: Page, title: string): Locator {
  return page.getByRole('link', { name: title, exact: true });
}

/**
 * How far the page reaches past the device's width in CSS pixels (0: no sideways scrolling), and when it does, the
 * innermost elements that stick out, to say what to fix. A mobile browser widens its layout viewport (and zooms
 * out) to fit wide content, so `innerWidth` alone can grow with the overflow: the device width is the yardstick.
 */
export function sidewaysOverflow(
  page: Page,
  deviceWidth: number,
): Promise<{ overflowPx: number; elements: string[] }> {
  return page.evaluate((width) => {
    const overflowPx = Math.max(document.documentElement.scrollWidth, window.innerWidth) - width;
    if (overflowPx <= 0) return { overflowPx: 0, elements: [] };
    const sticksOut = (element: Element) => element.getBoundingClientRect().right > width + 0.5;
    const elements = [...document.body.querySelectorAll('*')]
      .filter((element) => sticksOut(element) && ![...element.children].some(sticksOut))
      .slice(0, 5)
      .map((element) => {
        const right = Math.round(element.getBoundingClientRect().right);
        const text = element.textContent.slice(0, 40);
        return `<${element.tagName.toLowerCase()} class="${element.className}"> right=${right}px "${text}"`;
      });
    return { overflowPx, elements };
  }, deviceWidth);
}
