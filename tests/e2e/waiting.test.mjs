// A first visit on a slow network: the agent runs Python before CPython has come. The
// step that waits for it says so, with a bar, until it is ready, and then runs. The
// demo's server holds python.wasm until the test lets it go.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { startModelServer } from './servers/model.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT, promptCount, waitForScreen } from './screen.mjs';
import { configure } from './settings.mjs';

for (const name of browserNames) {
  describe(`a step waiting for a program in ${name}`, () => {
    let site;
    let model;
    let browser;
    let page;
    let errors;
    let release;

    before(async () => {
      const released = new Promise((resolve) => (release = resolve));
      site = await serve(DEMO_ROOT, 0, { hold: (path) => (path.endsWith('/python.wasm') ? released : undefined) });
      model = await startModelServer();
      browser = await launch(name);
      ({ page, errors } = await openPage(browser, `${site.url}?sandbox=waiting-${Date.now()}`));
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt');
    });

    after(async () => {
      release?.();
      await browser?.close();
      await model?.close();
      await site?.close();
    });

    test('the running step shows the download, then the program runs', async () => {
      await configure(page, { provider: 'openai', endpoint: `${model.url}/v1`, model: 'scripted-gpt', apiKey: 'sk-test' });
      model.script([{ toolCalls: [{ name: 'bash', args: { command: 'python3 -c "print(6 * 7)"' } }] }, { text: 'It printed 42.' }]);
      await page.focus('#prompt');
      await page.keyboard.type('Run Python.');
      await page.keyboard.press('Enter');
      const shown = await page.waitForFunction(
        () => {
          const box = document.querySelector('.step.running .step-progress');
          return box && { text: box.querySelector('.wait-text').textContent, bar: box.querySelector('progress') !== null };
        },
        { timeout: 30_000 },
      );
      const { text, bar } = await shown.jsonValue();
      assert.match(text, /^Waiting for python3: downloading/);
      assert.ok(bar);
      release();
      await page.waitForFunction(() => !document.querySelector('.turn.running'), { timeout: 120_000 });
      const step = await page.$eval('.step', (el) => ({ state: el.className, output: el.querySelector('.output')?.textContent ?? '', waiting: el.querySelector('.step-progress') !== null }));
      assert.deepEqual(step, { state: 'step ok', output: '42\n[exit code 0]', waiting: false });
      assert.deepEqual(errors, []);
    });
  });
}
