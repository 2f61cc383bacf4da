// Reaching into the package's contained frames (a wrapper frame holding the content).

/** The content frame inside the contained frame at `selector` (a puppeteer Frame). */
export async function containedContent(page, selector, { timeout = 20_000 } = {}) {
  // A frame drawn again (a switch, a change of files) replaces its elements: one found
  // just before that has no frame any more, so look again until both are there.
  const deadline = Date.now() + timeout;
  for (;;) {
    const left = Math.max(1, deadline - Date.now());
    const outer = await (await page.waitForSelector(selector, { timeout: left })).contentFrame();
    const inner = outer && (await (await outer.waitForSelector('iframe', { timeout: left }).catch(() => null))?.contentFrame());
    if (inner) return inner;
    if (Date.now() >= deadline) throw new Error(`no contained frame at ${selector} after ${timeout} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
