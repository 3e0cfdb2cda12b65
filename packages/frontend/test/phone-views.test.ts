import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useBrowserSuite } from './browser-harness.ts';
import { colorQuestion, text, toolUse } from '@catalyst/testkit';
import { findAxeViolations } from './axe-check.ts';
import { createIdeaFromList, sendMessage, sidewaysOverflow, transcript, workspaceTab } from './idea-page.ts';

// Every view on the two phones the issue names (issue 29): the page never scrolls sideways, and each control a thumb
// uses is at least 44 px tall and wide (a link inside a sentence excepted, as WCAG 2.5.5 does).

const suite = useBrowserSuite({ host: 'in-process' });

const PHONES = [
  { width: 360, height: 640, isMobile: true, hasTouch: true },
  { width: 390, height: 844, isMobile: true, hasTouch: true },
] as const;
const MIN_TARGET_PX = 44;

/** The controls smaller than a thumb: `<tag> "name" w×h`. */
function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate((min) => {
    const controls = document.querySelectorAll(
      'button, a[href], input:not([type="hidden"]), select, textarea, summary, [role="button"], [role="tab"]',
    );
    const found: string[] = [];
    for (const control of controls) {
      const box = control.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      const style = getComputedStyle(control);
      if (style.visibility === 'hidden') continue;
      // A link in running text, or a box its label makes bigger, is not a target of its own.
      if (control.tagName === 'A' && style.display === 'inline' && control.closest('p') !== null) continue;
      const label = control.closest('label');
      const target = label === null ? box : label.getBoundingClientRect();
      if (target.height + 0.5 < min || target.width + 0.5 < min) {
        const name = (control.getAttribute('aria-label') ?? control.textContent).trim().slice(0, 30);
        found.push(
          `<${control.tagName.toLowerCase()}> "${name}" ${Math.round(target.width)}×${Math.round(target.height)}`,
        );
      }
    }
    return found;
  }, MIN_TARGET_PX);
}

async function expectFitsThumbs(page: Page, width: number, view: string): Promise<void> {
  expect(await sidewaysOverflow(page, width), `${view}: sideways`).toEqual({ overflowPx: 0, elements: [] });
  expect(await smallTargets(page), `${view}: controls under ${String(MIN_TARGET_PX)} px`).toEqual([]);
  expect(await findAxeViolations(page), `${view}: axe`).toEqual([]);
}

/**
 * With the on-screen keyboard up the window is what is left above it (the viewport meta's
 * `interactive-widget=resizes-content`): the message box and Send must be in it, whole.
 */
async function expectComposerAboveKeyboard(
  page: Page,
  phone: { width: number; height: number },
): Promise<void> {
  const keyboardPx = Math.round(phone.height * 0.42);
  await page.setViewportSize({ width: phone.width, height: phone.height - keyboardPx });
  await page.getByLabel('Message', { exact: true }).focus();
  const within = await page.evaluate(() => {
    const inWindow = (element: Element | null) => {
      const box = element?.getBoundingClientRect();
      return box !== undefined && box.top >= 0 && box.bottom <= window.innerHeight + 0.5;
    };
    const send = [...document.querySelectorAll('button')].find((button) => button.textContent === 'Send');
    return { message: inWindow(document.activeElement), send: inWindow(send ?? null) };
  });
  expect(within, 'the message box and Send above the keyboard').toEqual({ message: true, send: true });
  await page.setViewportSize({ width: phone.width, height: phone.height });
}

describe('every view on a phone', () => {
  for (const phone of PHONES) {
    it(`fits ${String(phone.width)}×${String(phone.height)}: no sideways scroll, thumb-sized controls`, async () => {
      const page = await suite.openLoggedInPage({ device: phone });
      const size = `${String(phone.width)}×${String(phone.height)}`;
      await expectFitsThumbs(page, phone.width, `the ideas list, ${size}`);

      await page.getByRole('button', { name: 'New idea' }).click();
      await page.getByRole('form', { name: 'New idea' }).waitFor();
      await expectFitsThumbs(page, phone.width, `the new-idea form, ${size}`);
      await page.getByRole('button', { name: 'Cancel' }).click();

      await page.getByRole('button', { name: 'Open on another device' }).click();
      await page.getByRole('dialog').waitFor();
      await expectFitsThumbs(page, phone.width, `"Open on another device", ${size}`);
      await page.keyboard.press('Escape');

      await page.getByRole('link', { name: 'Hosts', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Hosts' }).waitFor();
      await expectFitsThumbs(page, phone.width, `the Hosts page, ${size}`);
      await page.goBack();

      await createIdeaFromList(page, { title: `On a ${size} phone`, description: 'Thumbs.' });
      await expectFitsThumbs(page, phone.width, `an idea's page, ${size}`);
      await expectComposerAboveKeyboard(page, phone);

      suite.fixture.model.enqueue(
        toolUse('AskUserQuestion', { questions: [colorQuestion] }),
        text('Blue it is.'),
      );
      await sendMessage(page, 'Pick a color with me.');
      const card = transcript(page).getByRole('region', { name: 'Question: Color', exact: true });
      await card.getByText('Cool color').waitFor();
      await expectFitsThumbs(page, phone.width, `a question waiting, ${size}`);
      await card.getByRole('radio', { name: 'Blue' }).check();
      await card.getByRole('button', { name: 'Submit answer' }).click();
      await transcript(page).getByText('Blue it is.').waitFor();

      await workspaceTab(page, 'Settings').click();
      await page.getByRole('region', { name: 'Settings', exact: true }).waitFor();
      await expectFitsThumbs(page, phone.width, `an idea's settings, ${size}`);
      await workspaceTab(page, 'Files').click();
      await page.getByRole('region', { name: 'Files' }).waitFor();
      await expectFitsThumbs(page, phone.width, `an idea's files, ${size}`);
      await workspaceTab(page, 'Preview').click();
      await page.getByRole('region', { name: 'Preview' }).waitFor();
      await expectFitsThumbs(page, phone.width, `an idea's preview, ${size}`);
      await workspaceTab(page, 'Conversation').click();
      await page.getByRole('button', { name: 'Autopilot', exact: true }).click();
      await page.getByRole('region', { name: 'Autopilot', exact: true }).waitFor();
      await expectFitsThumbs(page, phone.width, `the autopilot panel, ${size}`);
    });
  }
});
