import { describe, expect, it } from 'vitest';
import { describeInBrowser, freshAppInBrowser } from '../support/browserSuite.js';
import { openApp, screenshot } from '../support/chromium.js';
import { appConsoleErrors, axeViolations, settled, type AxeFinding } from '../support/e2ePage.js';

/**
 * Every screen of a fresh install, in light and dark: its empty state says what to do next, it
 * makes no request beyond 127.0.0.1, logs no error, and axe-core finds nothing serious.
 */

const THEMES = ['light', 'dark'] as const;

/** Each screen and the test id of what a fresh install shows there. */
const SCREENS = [
  ['corpus', 'kb-empty'],
  ['ask', 'no-kb'],
  ['graph', 'no-kb'],
  ['models', 'models-files-empty'],
  ['evaluate', 'eval-empty'],
  ['settings', 'settings-data-dir'],
] as const;

const backgrounds: Record<string, string> = {};

describeInBrowser('every screen of a fresh install', () => {
  const app = freshAppInBrowser();

  describe.each(THEMES)('every screen in the %s theme', (theme) => {
    it('shows its empty state, offline, without errors or serious accessibility violations', async () => {
      const { context, page, externalRequests, consoleErrors } = await openApp(app.browser, app.server.authUrl, {
        colorScheme: theme,
      });
      try {
        await page.getByTestId('nav-corpus').waitFor();
        expect(page.url(), 'the token leaves the address bar').not.toContain('token=');
        const findings: Record<string, AxeFinding[]> = {};

        for (const [screen, emptyId] of SCREENS) {
          await page.getByTestId(`nav-${screen}`).click();
          await page.getByTestId(`screen-${screen}`).waitFor();
          expect(await page.getByTestId(`nav-${screen}`).getAttribute('aria-current')).toBe('page');
          await page.getByTestId(emptyId).first().waitFor({ state: 'visible' });
          await settled(page);
          expect(await page.getByTestId('error-view').count(), `${screen}: no error view on a fresh install`).toBe(0);
          if (screen === 'settings')
            expect(await page.getByTestId('settings-data-dir').textContent()).toContain(app.server.dataDir);
          await screenshot(page, `${screen}-${theme}`);
          const serious = await axeViolations(page);
          if (serious.length > 0) findings[screen] = serious;
        }

        backgrounds[theme] = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        expect(findings, 'serious or critical axe-core violations').toEqual({});
        expect(externalRequests).toEqual([]);
        expect(appConsoleErrors(consoleErrors)).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });

  describe('themes and sign-in', () => {
    it('follows the system colour scheme', () => {
      expect(backgrounds.light).toBeTruthy();
      expect(backgrounds.dark).toBeTruthy();
      expect(backgrounds.dark).not.toBe(backgrounds.light);
    });

    it('is keyboard reachable: skip link, then the navigation, which moves focus to the screen', async () => {
      const { context, page } = await openApp(app.browser, app.server.authUrl);
      try {
        await page.getByTestId('nav-corpus').waitFor();
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => document.activeElement?.getAttribute('href'))).toBe('#main');
        for (
          let i = 0;
          i < 10 && (await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))) !== 'nav-ask';
          i++
        )
          await page.keyboard.press('Tab');
        expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('nav-ask');
        await page.keyboard.press('Enter');
        await page.getByTestId('screen-ask').waitFor();
        expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
      } finally {
        await context.close();
      }
    });

    it('without the token, the page shows the UNAUTHORIZED error view', async () => {
      // Signed in by cookie (static files load), but this tab never received the Api token.
      const { context, page } = await openApp(app.browser, app.server.authUrl);
      try {
        await page.getByTestId('nav-corpus').waitFor();
        const tab = await context.newPage();
        await tab.goto(app.server.url);
        const error = tab.getByTestId('error-view').first();
        await error.waitFor({ state: 'visible' });
        expect(await error.getAttribute('data-code')).toBe('UNAUTHORIZED');
        await screenshot(tab, 'unauthorized');
      } finally {
        await context.close();
      }
    });

    it('without the cookie or with a wrong token, the server refuses the page', async () => {
      const context = await app.browser.newContext();
      try {
        const page = await context.newPage();
        const plain = await page.goto(app.server.url);
        expect(plain?.status()).toBe(401);
        expect(await page.textContent('body')).toContain('UNAUTHORIZED');
        const forged = await page.goto(app.server.authUrl.replace(/token=[0-9a-f]+/, `token=${'0'.repeat(64)}`));
        expect(forged?.status()).toBe(401);
        expect(await page.getByTestId('nav-corpus').count()).toBe(0);
      } finally {
        await context.close();
      }
    });
  });
});
