// The coding agent's Settings dialog, as a person fills it: shared by the agent tests.

/** Opens Settings, sets each named field, and saves (the dialog closes). */
export async function configure(page, fields) {
  await page.click('#settings');
  await page.waitForSelector('#settings-dialog[open]');
  for (const [name, value] of Object.entries(fields)) {
    await page.$eval(
      `#settings-dialog [name="${name}"]`,
      (el, v) => {
        el.value = v;
        el.dispatchEvent(new Event('change'));
      },
      String(value),
    );
  }
  await page.click('#settings-save');
  await page.waitForFunction(() => !document.querySelector('#settings-dialog').open);
}
