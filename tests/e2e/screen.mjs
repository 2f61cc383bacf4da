// Reading and typing into the demo's terminal, shared by the end-to-end tests.
import assert from 'node:assert/strict';

export const DEMO_ROOT = new URL('../../www/dist/', import.meta.url).pathname;
export const PROMPT = 'agent@sandtab:$';

/** The terminal's visible rows, as text. */
export async function screen(page) {
  return page.$$eval('#terminal .xterm-rows > div', (rows) => rows.map((row) => row.textContent.replace(/\u00a0/g, ' ').trimEnd()));
}

/** Polls the screen until `predicate(rows)` holds; fails showing the screen otherwise. */
export async function waitForScreen(page, predicate, what, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  let rows = [];
  while (Date.now() < deadline) {
    rows = await screen(page);
    if (predicate(rows)) return rows;
    await new Promise((r) => setTimeout(r, 50));
  }
  // A page that could not start shows why instead of a terminal.
  const startupError = await page.$eval('.startup-error', (box) => box.textContent).catch(() => null);
  const shown = startupError ?? rows.filter(Boolean).join('\n');
  assert.fail(`timed out waiting for ${what}; the screen shows:\n${shown}`);
}

export const promptCount = (rows) => rows.filter((row) => row.startsWith(PROMPT)).length;

export async function typeLine(page, line) {
  await page.focus('#terminal .xterm-helper-textarea');
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}
