// <sandtab-terminal> as a person uses it with mouse and keyboard: copy a selection,
// paste lines, leave the terminal with the keyboard alone, switch themes, resize.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT, promptCount, screen, typeLine, waitForScreen } from './screen.mjs';

for (const name of browserNames) {
  describe(`terminal element in ${name}`, () => {
    let server;
    let browser;
    let page;
    let errors;

    before(async () => {
      server = await serve(DEMO_ROOT);
      browser = await launch(name);
      ({ page, errors } = await openPage(browser, `${server.url}?sandbox=term-${Date.now()}`));
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt');
      // The clipboard, observed: headless browsers have no system clipboard to read back.
      await page.evaluate(() => {
        window.copied = [];
        Object.defineProperty(navigator, 'clipboard', { value: { writeText: async (text) => void window.copied.push(text) } });
      });
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    /** Selects the row that reads `word` by dragging the mouse across it. */
    async function selectWord(word) {
      const box = await page.evaluate((w) => {
        const rows = [...document.querySelectorAll('#terminal .xterm-rows > div')];
        const row = rows.filter((r) => r.textContent.replace(/\u00a0/g, ' ').trimEnd() === w).at(-1);
        const rect = row.getBoundingClientRect();
        const cell = rect.width / document.getElementById('terminal').size.cols;
        return { x: rect.left + cell * 0.2, y: rect.top + rect.height / 2, to: rect.left + cell * (w.length - 0.2) };
      }, word);
      await page.mouse.move(box.x, box.y);
      await page.mouse.down();
      await page.mouse.move((box.x + box.to) / 2, box.y, { steps: 4 });
      await page.mouse.move(box.to, box.y, { steps: 4 });
      await page.mouse.up();
      await page.waitForFunction((w) => document.getElementById('terminal').selection === w, { timeout: 5_000 }, word);
    }

    test('the element says its API version', async () => {
      assert.equal(await page.evaluate(() => customElements.get('sandtab-terminal').apiVersion), 1);
    });

    test('Ctrl+Shift+C copies the selection; Ctrl+C with a selection copies instead of stopping', async () => {
      await typeLine(page, 'echo copyme');
      await waitForScreen(page, (r) => promptCount(r) === 2, 'the echo');
      await selectWord('copyme');
      await page.keyboard.down('Control');
      await page.keyboard.down('Shift');
      await page.keyboard.press('KeyC');
      await page.keyboard.up('Shift');
      await page.keyboard.up('Control');
      await page.waitForFunction(() => window.copied.length === 1);
      assert.deepEqual(await page.evaluate(() => window.copied), ['copyme']);
      await selectWord('copyme');
      await page.keyboard.down('Control');
      await page.keyboard.press('KeyC');
      await page.keyboard.up('Control');
      await page.waitForFunction(() => window.copied.length === 2);
      assert.equal(await page.evaluate(() => window.copied[1]), 'copyme');
      assert.ok(!(await screen(page)).some((row) => row.includes('^C')), 'no interrupt');
    });

    test('pasted lines run one after another, from a real paste event too', async () => {
      const before = promptCount(await screen(page));
      await page.evaluate(() => document.getElementById('terminal').paste('echo one\necho two\n'));
      await waitForScreen(page, (r) => promptCount(r) === before + 2, 'both pasted lines');
      // A paste event as the browser sends it. Firefox gives synthetic paste events an
      // empty clipboardData, so there only the method above is exercised.
      if (name === 'firefox') return;
      const data = 'echo three\n';
      await page.evaluate((text) => {
        const target = document.querySelector('#terminal .xterm-helper-textarea');
        const transfer = new DataTransfer();
        transfer.setData('text/plain', text);
        target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
      }, data);
      const rows = await waitForScreen(page, (r) => promptCount(r) === before + 3, 'the pasted line');
      for (const word of ['one', 'two', 'three']) assert.ok(rows.includes(word), rows.join('\n'));
    });

    test('keyboard only: Tab stays in the shell, Escape then Tab moves on', async () => {
      await page.focus('#terminal .xterm-helper-textarea');
      await page.keyboard.press('Tab');
      assert.ok(await page.evaluate(() => document.getElementById('terminal').contains(document.activeElement)));
      await page.keyboard.press('Escape');
      await page.keyboard.press('Tab');
      assert.ok(await page.evaluate(() => !document.getElementById('terminal').contains(document.activeElement)), 'focus left the terminal');
      // And back in with Shift+Tab: still usable.
      await page.keyboard.down('Shift');
      await page.keyboard.press('Tab');
      await page.keyboard.up('Shift');
      assert.ok(await page.evaluate(() => document.getElementById('terminal').contains(document.activeElement)), 'focus came back');
      const before = promptCount(await screen(page));
      await page.keyboard.type('echo keyboard');
      await page.keyboard.press('Enter');
      await waitForScreen(page, (r) => promptCount(r) === before + 1 && r.includes('keyboard'), 'the typed command');
    });

    test('the theme attribute switches the colours at once', async () => {
      const background = () => page.$eval('#terminal .xterm-scrollable-element', (el) => getComputedStyle(el).backgroundColor);
      await page.$eval('#terminal', (el) => el.setAttribute('theme', 'light'));
      await page.waitForFunction(() => getComputedStyle(document.querySelector('#terminal .xterm-scrollable-element')).backgroundColor === 'rgb(255, 255, 255)');
      await page.$eval('#terminal', (el) => el.setAttribute('theme', 'dark'));
      await page.waitForFunction(() => getComputedStyle(document.querySelector('#terminal .xterm-scrollable-element')).backgroundColor === 'rgb(30, 30, 30)');
      assert.equal(await background(), 'rgb(30, 30, 30)');
    });

    test('the terminal follows its element when resized', async () => {
      const size = () => page.$eval('#terminal', (el) => el.size);
      const first = await size();
      await page.$eval('#terminal', (el) => {
        el.style.height = '160px';
        el.style.width = '420px';
      });
      await page.waitForFunction((old) => {
        const now = document.getElementById('terminal').size;
        return now.rows < old.rows && now.cols < old.cols;
      }, {}, first);
      await page.$eval('#terminal', (el) => el.removeAttribute('style'));
      await page.waitForFunction((old) => document.getElementById('terminal').size.rows === old.rows, {}, first);
    });

    test('a line longer than the terminal is wide wraps and edits cleanly', async () => {
      await page.$eval('#terminal', (el) => (el.style.width = '360px'));
      await page.waitForFunction(() => document.getElementById('terminal').size.cols < 45);
      const cols = await page.$eval('#terminal', (el) => el.size.cols);
      await page.focus('#terminal .xterm-helper-textarea');
      await page.keyboard.down('Control');
      await page.keyboard.press('KeyL');
      await page.keyboard.up('Control');
      await waitForScreen(page, (r) => promptCount(r) === 1, 'a clear screen');
      const word = 'w'.repeat(cols * 2);
      await page.keyboard.type(`echo ${word} > /tmp/wrap`);
      // Into the first row for one edit, then back across a wrap for another.
      await page.keyboard.press('Home');
      for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
      await page.keyboard.type('Y');
      await page.keyboard.press('End');
      for (let i = 0; i < cols + ' > /tmp/wrap'.length; i++) await page.keyboard.press('ArrowLeft');
      await page.keyboard.type('Z');
      // Redraws left exactly one prompt on the screen.
      assert.equal(promptCount(await screen(page)), 1, (await screen(page)).join('\n'));
      await page.keyboard.press('Enter');
      await waitForScreen(page, (r) => promptCount(r) === 2, 'the wrapped command');
      const written = await page.evaluate(async () => new TextDecoder().decode(await window.sandtab.sandbox.readFile('/tmp/wrap')));
      assert.equal(written, `Y${word.slice(0, word.length - cols)}Z${word.slice(word.length - cols)}\n`);
      await page.$eval('#terminal', (el) => el.removeAttribute('style'));
    });

    test('removed, a terminal ends the sandbox it started (worker and lock); put back, it starts again', async () => {
      const out = await page.evaluate(async () => {
        const name = `own-${Date.now()}`;
        const element = document.createElement('sandtab-terminal');
        // Its own sandbox: the default name, in IndexedDB, under the tab's Web Lock.
        document.body.append(element);
        await element.ready;
        const first = await element.run('echo first > /tmp/own; echo started');
        element.remove();
        // The lock is free once it is gone: the page can open that sandbox itself.
        let opened = null;
        for (let i = 0; i < 50 && !opened; i++) {
          opened = await window.sandtab.Sandbox.create().catch((err) => (err.code === 'EBUSY' ? null : Promise.reject(err)));
          if (!opened) await new Promise((r) => setTimeout(r, 100));
        }
        const seen = opened ? (await opened.exec('echo page-opened')).stdout : 'EBUSY';
        opened?.terminate();
        // Put back, it starts a sandbox again.
        document.body.append(element);
        await element.ready;
        const again = await element.run('echo again');
        element.remove();
        return { first, seen, again, name };
      });
      assert.equal(out.first, 0);
      assert.equal(out.seen, 'page-opened\n');
      assert.equal(out.again, 0);
    });

    test('a terminal and the page share the sandbox of one name, in either order', async () => {
      const out = await page.evaluate(async () => {
        const { Sandbox } = window.sandtab;
        const read = async (box, path) => new TextDecoder().decode(await box.readFile(path));
        // The element first (as in HTML), then the page's own create of that name.
        const first = `share-a-${Date.now()}`;
        const element = document.createElement('sandtab-terminal');
        element.setAttribute('name', first);
        document.body.append(element);
        const box = await Sandbox.create({ name: first });
        await element.ready;
        await box.writeFile('/home/agent/from-page', 'page wrote this');
        await element.run('cat /home/agent/from-page > /tmp/seen');
        const seen = await read(box, '/tmp/seen');
        const same = element.sandbox === box;
        // Asking for more of a name already open here is refused, saying what to do.
        const more = await Sandbox.create({ name: first, limits: { timeoutMs: 1000 } }).then(
          () => 'opened',
          (e) => `${e.code}: ${e.message}`,
        );
        // Removed, the element lets go of its share only: the page's goes on.
        element.remove();
        await new Promise((r) => setTimeout(r, 300));
        const alive = (await box.exec('echo alive')).stdout;
        await box.close();
        // The page first, then an element with name and storage attributes.
        const second = `share-b-${Date.now()}`;
        const pageBox = await Sandbox.create({ name: second, storage: 'opfs' });
        const other = document.createElement('sandtab-terminal');
        other.setAttribute('name', second);
        other.setAttribute('storage', 'opfs');
        document.body.append(other);
        await other.ready;
        await other.run('echo typed > /home/agent/typed');
        const typed = await read(pageBox, '/home/agent/typed');
        const sameAgain = other.sandbox === pageBox;
        other.remove();
        await pageBox.close();
        // Both let go: the name opens anew, with the saved file.
        const reopened = await Sandbox.create({ name: second, storage: 'opfs' });
        const kept = await read(reopened, '/home/agent/typed');
        const fresh = reopened !== pageBox;
        await reopened.close();
        await Sandbox.deleteStored(first);
        await Sandbox.deleteStored(second);
        return { seen, same, more, alive, typed, sameAgain, kept, fresh };
      });
      assert.equal(out.seen, 'page wrote this');
      assert.equal(out.same, true);
      assert.match(out.more, /^EBUSY: sandbox "share-a-\d+" is already open in this page/);
      assert.equal(out.alive, 'alive\n');
      assert.equal(out.typed, 'typed\n');
      assert.equal(out.sameAgain, true);
      assert.equal(out.kept, 'typed\n');
      assert.equal(out.fresh, true);
    });

    test('nothing was logged as an error', () => {
      assert.deepEqual(errors, []);
    });
  });
}
