// Reaching into the package's contained frames (a wrapper frame holding the content).

/** The content frame inside the contained frame at `selector` (a puppeteer Frame). */
export async function containedContent(page, selector, { timeout = 20_000 } = {}) {
  const outer = await (await page.waitForSelector(selector, { timeout })).contentFrame();
  return (await outer.waitForSelector('iframe', { timeout })).contentFrame();
}
