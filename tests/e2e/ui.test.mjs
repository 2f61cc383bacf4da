// The ui door end to end: the sandbox's HTML runs in a frame that can read nothing of
// the page (no DOM, cookies or storage) and reach nothing on the network, and its
// clicks, form submissions and messages come back to `ui wait` as JSON.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { containedContent } from './frames.mjs';
import { DEMO_ROOT } from './screen.mjs';
import { startServer } from './servers/http.mjs';

const PROBE = (port) => `<p id=x>probe</p><script>
const r = {};
const attempt = (name, f) => { try { r[name] = String(f()); } catch (e) { r[name] = 'blocked: ' + e.name; } };
attempt('parentDocument', () => parent.document.title);
attempt('topLocation', () => top.location.href);
attempt('cookie', () => document.cookie);
attempt('localStorage', () => localStorage.getItem('k'));
attempt('indexedDB', () => indexedDB.open('x') && 'opened');
fetch('http://127.0.0.1:${port}/beacon').then(() => 'sent', (e) => 'blocked: ' + e.name).then((f) => { r.fetch = f; sandtab.send(r); });
</script>`;

const FORM = `<form id=order><input name=item value=tea><select name=size><option>big</option></select><button id=go>Order</button></form>`;

for (const name of browserNames) {
  describe(`the ui door in ${name}`, () => {
    let site;
    let beacon;
    let browser;
    let page;

    before(async () => {
      site = await serve(DEMO_ROOT);
      beacon = await startServer('127.0.0.1', { '/beacon': () => ({ body: 'got it' }) });
      browser = await launch(name);
      ({ page } = await openPage(browser, `${site.url}?sandbox=ui-${Date.now()}`));
      await page.waitForFunction(() => window.sandtab?.Sandbox !== undefined);
      await page.evaluate(async () => {
        document.cookie = 'page-secret=cookie-value';
        localStorage.setItem('k', 'page-secret-storage');
        const place = document.createElement('div');
        place.id = 'test-ui';
        document.body.append(place);
        // The probe's own scripts report what they could reach: this sandbox lets them run.
        window.uibox = await window.sandtab.Sandbox.create({ storage: 'memory', capabilities: { ui: true }, ui: place, uiScripts: true });
        window.noui = await window.sandtab.Sandbox.create({ storage: 'memory', ui: place });
      });
    });

    after(async () => {
      await browser?.close();
      await site?.close();
      await beacon?.close();
    });

    const exec = (box, script, files = {}) =>
      page.evaluate(
        async (b, s, f) => {
          for (const [path, text] of Object.entries(f)) await window[b].writeFile(path, text);
          const r = await window[b].exec(s);
          return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
        },
        box,
        script,
        files,
      );

    test('the frame reads nothing of the page and reaches nothing', async () => {
      const out = await exec('uibox', 'ui show probe.html --wait --timeout 20', { '/home/agent/probe.html': PROBE(new URL(beacon.origin).port) });
      assert.equal(out.exitCode, 0, out.stderr);
      const event = JSON.parse(out.stdout);
      assert.equal(event.type, 'message');
      for (const [key, value] of Object.entries(event.data)) {
        assert.match(value, /^blocked: /, `${key}: ${value}`);
      }
      assert.deepEqual(Object.keys(event.data).sort(), ['cookie', 'fetch', 'indexedDB', 'localStorage', 'parentDocument', 'topLocation']);
      assert.ok(!out.stdout.includes('page-secret'));
      assert.equal(beacon.requests.length, 0, 'the frame sent nothing');
      const frame = await page.evaluate(() => {
        const f = document.querySelector('#test-ui iframe');
        return { sandbox: f.getAttribute('sandbox'), hasSrcdoc: f.srcdoc.includes('Content-Security-Policy') };
      });
      assert.deepEqual(frame, { sandbox: 'allow-scripts', hasSrcdoc: true });
    });

    test('a form submission comes back as JSON; a timeout is exit 124; close removes the frame', async () => {
      const shown = await exec('uibox', 'ui show form.html --title Order', { '/home/agent/form.html': FORM });
      assert.equal(shown.exitCode, 0, shown.stderr);
      // A person's click (the browser's own input, not a script's).
      await (await containedContent(page, '#test-ui iframe')).click('#go');
      const out = await exec('uibox', 'ui wait --timeout 20 | jq -c "{type, form, data}"');
      assert.equal(out.stdout, '{"type":"submit","form":"order","data":{"item":"tea","size":"big"}}\n', out.stderr);
      const timeout = await exec('uibox', 'ui wait --timeout 0.2; echo "exit $?"; ui close; echo "closed $?"');
      assert.equal(timeout.stdout, 'exit 124\nclosed 0\n', timeout.stderr);
      assert.equal(await page.evaluate(() => document.querySelectorAll('#test-ui iframe').length), 0);
    });

    // Without the cancel reaching the wait, this would take the wait's full 120 s.
    test('cancel ends a ui wait at once, and the command with it', { timeout: 60_000 }, async () => {
      const out = await page.evaluate(async () => {
        await window.uibox.writeFile('/home/agent/wait.html', '<p>waiting</p>');
        const running = window.uibox.exec('ui show wait.html --wait --timeout 120; echo "after $?"');
        await new Promise((r) => setTimeout(r, 500));
        window.uibox.cancel();
        const r = await running;
        await window.uibox.exec('ui close');
        return { stdout: r.stdout, exitCode: r.exitCode };
      });
      // Stopped well before the 120 s timeout, as Ctrl-C stops any command.
      assert.equal(out.exitCode, 130, JSON.stringify(out));
      assert.doesNotMatch(out.stdout, /after/);
    });

    test('without the grant the ui door is shut', async () => {
      const out = await exec('noui', 'echo "<p>hi</p>" > p.html; ui show p.html; echo "exit $?"');
      assert.equal(out.stdout, 'exit 126\n');
      assert.match(out.stderr, /^ui: CAP_DENIED: /);
      assert.equal(await page.evaluate(() => document.querySelectorAll('#test-ui iframe').length), 0);
    });
  });
}
