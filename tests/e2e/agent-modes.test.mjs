// The coding agent in the less common ways people run it: a project kept in memory
// (`?storage=memory`, no snapshots), an OpenAI reasoning model (which refuses
// `max_tokens`), and a file tree three folders deep (its text keeps its size).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { startModelServer } from './servers/model.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT, promptCount, waitForScreen } from './screen.mjs';
import { configure } from './settings.mjs';

for (const name of browserNames) {
  describe(`agent modes in ${name}`, () => {
    let site;
    let model;
    let browser;
    let page;
    let errors;

    before(async () => {
      site = await serve(DEMO_ROOT);
      model = await startModelServer();
      browser = await launch(name);
      ({ page, errors } = await openPage(browser, `${site.url}?storage=memory&sandbox=memory-${Date.now()}`));
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt');
    });

    after(async () => {
      await browser?.close();
      await model?.close();
      await site?.close();
    });

    test('in memory, a turn runs (without a revert) and a reasoning model gets max_completion_tokens', async () => {
      await configure(page, { provider: 'openai', endpoint: `${model.url}/v1`, model: 'o4-mini', apiKey: 'sk-test' });
      model.script([{ toolCalls: [{ name: 'bash', args: { command: 'mkdir -p a/b/c && echo deep > a/b/c/f.txt' } }] }, { text: 'Made it.' }]);
      await page.focus('#prompt');
      await page.keyboard.type('Make a deep file.');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.querySelector('.turn') && !document.querySelector('.turn.running'), { timeout: 60_000 });
      const turn = await page.$eval('.turn', (el) => ({
        status: el.className,
        error: el.querySelector('.turn-error')?.textContent ?? null,
        notes: [...el.querySelectorAll('.turn-note')].map((n) => n.textContent),
        revert: el.querySelector('.revert') !== null,
        answer: el.querySelector('.answer')?.textContent.trim(),
      }));
      assert.deepEqual(turn, {
        status: 'turn done',
        error: null,
        notes: ['This project is kept in memory (?storage=memory), which keeps no snapshots: this turn cannot be reverted.'],
        revert: false,
        answer: 'Made it.',
      });
      const sent = model.requests.filter((r) => r.path === '/v1/chat/completions');
      assert.equal(sent.length, 2);
      for (const request of sent) {
        assert.equal(request.body.max_completion_tokens, request.body.max_completion_tokens | 0);
        assert.ok(request.body.max_completion_tokens > 0);
        assert.equal('max_tokens' in request.body, false);
      }
    });

    test('a step keeps the open state the person chose while the turn goes on; outputs copy', async () => {
      model.script([
        { toolCalls: [{ name: 'bash', args: { command: 'echo first-step' } }] },
        { toolCalls: [{ name: 'bash', args: { command: 'sleep 3; echo second-step' } }] },
        { text: 'Both ran.' },
      ]);
      await page.$eval('#prompt', (el) => (el.value = ''));
      await page.focus('#prompt');
      await page.keyboard.type('Run two steps.');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => [...document.querySelectorAll('.turn:last-child .step.running .gist')].some((g) => g.textContent.includes('sleep 3')), { timeout: 30_000 });
      // The person folds the first step while the second runs.
      const first = '.turn:last-child .step';
      assert.equal(await page.$eval(first, (el) => el.open), true);
      await page.evaluate((sel) => (window.firstStep = document.querySelector(sel)), first);
      await page.click(`${first} summary`);
      await page.waitForFunction(() => !document.querySelector('.turn:last-child .turn.running, .turn.running'), { timeout: 60_000 });
      const after = await page.evaluate((sel) => {
        const step = document.querySelector(sel);
        return { same: step === window.firstStep, open: step.open, answer: document.querySelector('.turn:last-child .answer')?.textContent.trim() };
      }, first);
      assert.deepEqual(after, { same: true, open: false, answer: 'Both ran.' });
      // Copy puts the output on the clipboard.
      await page.evaluate(() => {
        window.copied = [];
        navigator.clipboard.writeText = async (text) => void window.copied.push(text);
      });
      await page.click(`${first} summary`);
      await page.click(`${first} .copy`);
      const copied = await page.evaluate(() => window.copied);
      const output = await page.$eval(`${first} .output`, (el) => el.textContent);
      assert.deepEqual(copied, [output]);
      assert.match(output, /^first-step\n/);
    });

    test('Settings: Test connection lists the models, or says why it could not', async () => {
      await page.click('#settings');
      await page.waitForSelector('#settings-dialog[open]');
      const status = () => page.$eval('#settings-dialog .connection-status', (el) => el.textContent);
      await page.click('#settings-test');
      await page.waitForFunction(() => document.querySelector('#settings-dialog .connection-status').textContent.startsWith('Connected'), { timeout: 10_000 });
      assert.equal(await status(), 'Connected: 3 models; o4-mini is one.');
      assert.deepEqual(await page.$$eval('#model-list option', (os) => os.map((o) => o.value)), ['o4-mini', 'scripted-claude', 'scripted-gpt']);
      const asked = model.requests.filter((r) => r.path === '/v1/models').at(-1);
      assert.equal(asked.headers.authorization, 'Bearer sk-test');
      await page.$eval('#settings-dialog [name="apiKey"]', (el) => (el.value = 'sk-wrong'));
      await page.click('#settings-test');
      await page.waitForFunction(() => document.querySelector('#settings-dialog .connection-status').textContent.startsWith('Could not'), { timeout: 10_000 });
      assert.match(await status(), /^Could not connect: http:\/\/127\.0\.0\.1:\d+\/v1\/models answered HTTP 401: .*Incorrect API key/);
      await page.click('#settings-cancel');
    });

    test('a conversation near the context window is compacted: old outputs shortened, then earlier turns summarised', async () => {
      await configure(page, { maxTokens: 500, contextTokens: 8000 });
      const start = model.requests.length;
      const count = { name: 'bash', args: { command: 'seq 1 20000' } };
      model.script([
        { toolCalls: [count] },
        { toolCalls: [count] },
        // The endpoint says this call read 7,000 tokens: past 80% of 8,000.
        { toolCalls: [count], promptTokens: 7000 },
        { text: 'SUMMARY: a deep file was made, then two steps ran.' },
        { text: 'Counted three times.' },
      ]);
      const turnsBefore = await page.$$eval('.turn', (els) => els.length);
      await page.$eval('#prompt', (el) => (el.value = ''));
      await page.focus('#prompt');
      await page.keyboard.type('Count three times.');
      await page.keyboard.press('Enter');
      await page.waitForFunction((n) => document.querySelectorAll('.turn').length > n && !document.querySelector('.turn.running'), { timeout: 60_000 }, turnsBefore);
      const notes = await page.$$eval('.turn:last-child .compaction-note', (els) => els.map((el) => el.textContent));
      assert.equal(notes.length, 2, notes.join('\n'));
      assert.match(notes[0], /^The conversation neared the model's context window \(8,000 tokens\): shortened 1 old tool output, [\d,]+ characters fewer\.$/);
      assert.equal(notes[1], 'Still too long: the model summarised the 2 turns before this one, and reads that summary in their place. The summary: SUMMARY: a deep file was made, then two steps ran.');
      assert.equal(await page.$eval('.turn:last-child .answer:last-of-type', (el) => el.textContent.trim()), 'Counted three times.');
      const sent = model.requests.slice(start).filter((r) => r.path === '/v1/chat/completions').map((r) => r.body);
      assert.equal(sent.length, 5);
      // The fourth call asked for the summary, with the earlier turns only.
      assert.match(sent[3].messages[0].content, /^You summarise a coding agent's conversation/);
      assert.equal(sent[3].messages.at(-1).content, 'Summarise the conversation above, as the system prompt says.');
      assert.ok(!JSON.stringify(sent[3].messages).includes('Count three times.'));
      // The last call reads the summary in place of the earlier turns, then this turn,
      // its first output shortened and the other two whole.
      const last = sent[4].messages;
      assert.match(last[1].content, /^\[A summary of the conversation so far, made to save context\]\nSUMMARY: a deep file/);
      assert.equal(last[3].content, 'Count three times.');
      const outputs = last.filter((m) => m.role === 'tool').map((m) => m.content);
      assert.equal(outputs.length, 3);
      assert.match(outputs[0], /was dropped to save context/);
      assert.ok(outputs[1].length > 10_000 && outputs[2].length > 10_000);
    });

    test('the file tree folds, moves by keyboard, and makes, renames and deletes files', async () => {
      const row = (path) => `#files li[data-path="${path}"]`;
      const expanded = (path) => page.$eval(row(path), (el) => el.getAttribute('aria-expanded'));
      const focused = () => page.evaluate(() => document.activeElement?.dataset.path ?? null);
      const exists = (path) => page.evaluate((p) => window.sandtab.sandbox.exists(p), path);
      await page.waitForSelector(row('/home/agent/a/b/c/f.txt'));
      assert.equal(await page.$eval('#files', (el) => el.getAttribute('role')), 'tree');
      // A click on a folder folds it; again unfolds it.
      await page.click(`${row('/home/agent/a')} > .name`);
      assert.equal(await expanded('/home/agent/a'), 'false');
      assert.equal(await page.$eval(`${row('/home/agent/a')} > ul`, (el) => el.hidden), true);
      await page.click(`${row('/home/agent/a')} > .name`);
      assert.equal(await expanded('/home/agent/a'), 'true');
      // Keys: Left folds, Right unfolds then goes in, Down walks the rows shown.
      await page.focus(row('/home/agent/a'));
      await page.keyboard.press('ArrowLeft');
      assert.equal(await expanded('/home/agent/a'), 'false');
      await page.keyboard.press('ArrowRight');
      assert.equal(await expanded('/home/agent/a'), 'true');
      await page.keyboard.press('ArrowRight');
      assert.equal(await focused(), '/home/agent/a/b');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      assert.equal(await focused(), '/home/agent/a/b/c/f.txt');
      await page.keyboard.press('ArrowLeft');
      assert.equal(await focused(), '/home/agent/a/b/c');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.querySelector('#editor-panel .editor-path')?.textContent === '/home/agent/a/b/c/f.txt', { timeout: 30_000 });
      // The toolbar, on the chosen file's folder.
      const answers = [];
      const answer = (dialog) => void dialog.accept(answers.shift());
      page.on('dialog', answer);
      try {
        answers.push('g.txt');
        await page.click('#file-new');
        await page.waitForSelector(row('/home/agent/a/b/c/g.txt'));
        assert.equal(await exists('/home/agent/a/b/c/g.txt'), true);
        answers.push('h.txt');
        await page.click('#file-rename');
        await page.waitForSelector(row('/home/agent/a/b/c/h.txt'));
        assert.deepEqual([await exists('/home/agent/a/b/c/g.txt'), await exists('/home/agent/a/b/c/h.txt')], [false, true]);
        answers.push(undefined);
        await page.click('#file-delete');
        await page.waitForFunction((sel) => !document.querySelector(sel), {}, row('/home/agent/a/b/c/h.txt'));
        assert.equal(await exists('/home/agent/a/b/c/h.txt'), false);
        answers.push('sub');
        await page.click('#folder-new');
        await page.waitForSelector(row('/home/agent/a/b/c/sub'));
        assert.equal(await page.$eval(row('/home/agent/a/b/c/sub'), (el) => el.classList.contains('dir')), true);
      } finally {
        page.off('dialog', answer);
      }
    });

    test('the editor keeps several files in tabs, each with its unsaved edits', async () => {
      const tabs = () => page.$$eval('#editor-panel .editor-tab [role="tab"]', (els) => els.map((el) => `${el.textContent}${el.getAttribute('aria-selected') === 'true' ? ' (shown)' : ''}`));
      const text = () => page.$eval('#editor-panel .cm-content', (el) => el.innerText.replace(/\n+$/, ''));
      await page.evaluate(() => window.sandtab.sandbox.writeFile('/home/agent/two.txt', 'second file\n'));
      // The tree follows a file written through the package's API (its change event).
      await page.waitForSelector('#files li[data-path="/home/agent/two.txt"]', { timeout: 10_000 });
      // f.txt is open from the tree's test: edit it, unsaved.
      assert.deepEqual(await tabs(), ['f.txt (shown)']);
      await page.click('#editor-panel .cm-content');
      await page.keyboard.down('Control');
      await page.keyboard.press('Home');
      await page.keyboard.up('Control');
      await page.keyboard.press('End');
      await page.keyboard.type(' edited');
      await page.waitForFunction(() => document.querySelector('#editor-panel .editor-tab [role="tab"]').textContent === 'f.txt •');
      // A second file opens in a tab of its own.
      await page.click('#files li[data-path="/home/agent/two.txt"] > .name');
      await page.waitForFunction(() => document.querySelectorAll('#editor-panel .editor-tab').length === 2);
      assert.deepEqual(await tabs(), ['f.txt •', 'two.txt (shown)']);
      assert.equal(await text(), 'second file');
      // Back to the first: its edit is still there, unsaved.
      await page.click('#editor-panel .editor-tab:first-child [role="tab"]');
      await page.waitForFunction(() => document.querySelector('#editor-panel .editor-path').textContent === '/home/agent/a/b/c/f.txt');
      assert.equal(await text(), 'deep edited');
      assert.equal(await page.evaluate(() => window.sandtab.sandbox.readFile('/home/agent/a/b/c/f.txt').then((b) => new TextDecoder().decode(b))), 'deep\n');
      // Closing a tab shows the next; Ctrl-S saves the one shown.
      await page.click('#editor-panel .editor-tab:last-child .tab-close');
      assert.deepEqual(await tabs(), ['f.txt • (shown)']);
      await page.click('#editor-panel .cm-content');
      await page.keyboard.down('Control');
      await page.keyboard.press('s');
      await page.keyboard.up('Control');
      await page.waitForFunction(() => document.querySelector('#editor-panel .editor-tab [role="tab"]').textContent === 'f.txt');
      assert.equal(await page.evaluate(() => window.sandtab.sandbox.readFile('/home/agent/a/b/c/f.txt').then((b) => new TextDecoder().decode(b))), 'deep edited\n');
    });

    test('the file tree keeps its text size at every depth', async () => {
      await page.waitForFunction(() => [...document.querySelectorAll('#files li.file')].some((li) => li.textContent.startsWith('f.txt')), { timeout: 10_000 });
      const sizes = await page.evaluate(() => {
        const size = (el) => getComputedStyle(el).fontSize;
        const deep = [...document.querySelectorAll('#files li.file')].find((li) => li.textContent.startsWith('f.txt'));
        const top = document.querySelector('#files li');
        return { top: size(top), deep: size(deep) };
      });
      assert.equal(sizes.deep, sizes.top);
      // The browser logs the wrong key's 401, which the test asked for.
      assert.deepEqual(errors.filter((e) => !/Failed to load resource.*401/.test(e)), []);
    });
  });
}
