// Launches Debian's Chromium and Firefox ESR through puppeteer-core (Playwright cannot
// drive Debian's Firefox). SANDTAB_BROWSERS=chromium,firefox picks which.
import puppeteer from 'puppeteer-core';

const ALL = {
  chromium: () =>
    puppeteer.launch({
      browser: 'chrome',
      executablePath: process.env.CHROMIUM_BIN ?? '/usr/bin/chromium',
      headless: true,
      // Benchmarks run long page calls; tests have their own timeouts.
      protocolTimeout: 600_000,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    }),
  firefox: (prefs = {}) =>
    puppeteer.launch({
      browser: 'firefox',
      executablePath: process.env.FIREFOX_BIN ?? '/usr/bin/firefox-esr',
      headless: true,
      extraPrefsFirefox: {
        ...prefs,
        'app.update.enabled': false,
        'network.captive-portal-service.enabled': false,
        'network.connectivity-service.enabled': false,
        'browser.safebrowsing.malware.enabled': false,
        'browser.safebrowsing.phishing.enabled': false,
        'datareporting.policy.dataSubmissionEnabled': false,
        'toolkit.telemetry.enabled': false,
      },
    }),
};

export const browserNames = (process.env.SANDTAB_BROWSERS ?? 'chromium,firefox')
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);

for (const name of browserNames) {
  if (!(name in ALL)) throw new Error(`unknown browser ${name} in SANDTAB_BROWSERS (known: ${Object.keys(ALL)})`);
}

/** Launches browser `name`; `firefoxPrefs` adds preferences to a Firefox profile. */
export function launch(name, { firefoxPrefs } = {}) {
  return name === 'firefox' ? ALL.firefox(firefoxPrefs) : ALL[name]();
}

/** Opens `url` in a new page and records every console error and page error. */
export async function openPage(browser, url) {
  const page = await browser.newPage();
  const errors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console.error: ${message.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`page error: ${err.message ?? err}`));
  await page.goto(url);
  return { page, errors };
}
