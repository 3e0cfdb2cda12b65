import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useBrowserSuite } from './browser-harness.ts';
import { createIdeaFromList, workspaceTab } from './idea-page.ts';

// "Idea actions" (issue 40, item 16): it closes on Escape wherever the focus is, on a tap outside and on a
// navigation; it never covers the workspace's tabs, and "Delete idea" never lands where a tab was a moment ago.

const suite = useBrowserSuite({ host: 'in-process' });

const SIZES = [
  { width: 390, height: 844, isMobile: true, hasTouch: true },
  { width: 1440, height: 900, isMobile: false, hasTouch: false },
] as const;

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function boxesOf(locator: Locator): Promise<Box[]> {
  const boxes = await Promise.all((await locator.all()).map((item) => item.boundingBox()));
  return boxes.filter((box): box is Box => box !== null);
}

function menuButton(page: Page): Locator {
  return page.getByRole('button', { name: 'Idea actions', exact: true });
}

function menu(page: Page): Locator {
  return page.getByRole('dialog', { name: 'Idea actions', exact: true });
}

describe('the idea actions menu', () => {
  for (const size of SIZES) {
    const name = `${String(size.width)}×${String(size.height)}`;
    it(`at ${name}: covers no tab, puts "Delete idea" where no tab was, closes on Escape, outside and navigation`, async () => {
      const page = await suite.openLoggedInPage({ device: size });
      await createIdeaFromList(page, { title: `Menu at ${name}`, description: 'Thumbs and tabs.' });
      const tabs = page.getByRole('tablist', { name: 'Workspace' }).getByRole('tab');
      const tabsBefore = await boxesOf(tabs);
      expect(tabsBefore.length).toBeGreaterThan(0);

      await menuButton(page).click();
      await menu(page).waitFor();
      const popup = await menu(page).boundingBox();
      const remove = await menu(page).getByRole('button', { name: 'Delete idea', exact: true }).boundingBox();
      expect(popup).not.toBeNull();
      expect(remove).not.toBeNull();
      for (const tab of await boxesOf(tabs))
        expect(overlaps(popup as Box, tab), 'the menu covers a tab').toBe(false);
      for (const tab of tabsBefore) {
        expect(overlaps(remove as Box, tab), '"Delete idea" where a tab was').toBe(false);
      }
      const order = await menu(page).getByRole('button').allTextContents();
      expect(order.at(-1), 'Delete last').toBe('Delete idea');

      // Escape, with the focus outside the menu's buttons (a tap on its padding leaves it on the page).
      await page.evaluate(() => {
        (document.activeElement as HTMLElement | null)?.blur();
      });
      await page.keyboard.press('Escape');
      await menu(page).waitFor({ state: 'detached' });

      await menuButton(page).click();
      await menu(page).waitFor();
      await page.getByRole('heading', { level: 1 }).click();
      await menu(page).waitFor({ state: 'detached' });

      // A navigation: the "Changes" shortcut while the menu is open.
      await menuButton(page).click();
      await menu(page).waitFor();
      await page.keyboard.press('c');
      await expect.poll(() => page.url()).toContain('tab=changes');
      await menu(page).waitFor({ state: 'detached' });
      await workspaceTab(page, 'Changes').waitFor();
    });
  }
});
