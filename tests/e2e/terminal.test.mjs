// End to end, as a person meets it: the demo page served on 127.0.0.1, a real browser,
// keys typed into the terminal, text read off the screen.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT, PROMPT, promptCount, screen, typeLine, waitForScreen } from './screen.mjs';

const ROOT = DEMO_ROOT;

/** Ctrl-L: the screen keeps only the prompt, so prompts are counted from one. */
async function clearScreen(page) {
  await page.focus('#terminal .xterm-helper-textarea');
  await page.keyboard.down('Control');
  await page.keyboard.press('l');
  await page.keyboard.up('Control');
  await waitForScreen(page, (rows) => promptCount(rows) === 1 && rows.filter(Boolean).length === 1, 'a cleared screen');
}

/** The rows above the last prompt, the nearest last (a command's output ends there). */
const aboveLastPrompt = (rows) => rows.slice(0, rows.findLastIndex((row) => row.startsWith(PROMPT))).filter((row) => row !== '');
const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname;

for (const name of browserNames) {
  describe(`demo page in ${name}`, () => {
    let server;
    let browser;
    let page;
    let errors;

    before(async () => {
      server = await serve(ROOT);
      browser = await launch(name);
      ({ page, errors } = await openPage(browser, server.url));
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt');
    });

    after(async () => {
      if (page) {
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: `${ARTIFACTS}demo-${name}.png` }).catch(() => {});
      }
      await browser?.close();
      await server?.close();
    });

    test('a typed command shows its output', async () => {
      await typeLine(page, 'echo hello > /tmp/a; cat /tmp/a');
      const rows = await waitForScreen(page, (r) => promptCount(r) === 2, 'the command to finish');
      const command = rows.findIndex((row) => row.includes('echo hello > /tmp/a; cat /tmp/a'));
      assert.ok(command >= 0, rows.join('\n'));
      assert.equal(rows[command + 1], 'hello');
    });

    test('the files panel lists what the command wrote', async () => {
      await page.waitForFunction(
        () => [...document.querySelectorAll('#files li.file')].some((li) => li.textContent === 'a6 B' && li.parentElement.parentElement.firstChild.textContent === 'tmp/'),
        { timeout: 10_000 },
      );
    });

    test('the audit panel lists the command with its exit status', async () => {
      await page.waitForFunction(
        () => [...document.querySelectorAll('#audit-log li.exec')].some((li) => li.textContent.includes('echo hello > /tmp/a; cat /tmp/a → 0')),
        { timeout: 10_000 },
      );
    });

    test('history recalls the previous command with the up arrow', async () => {
      await page.focus('#terminal .xterm-helper-textarea');
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('Enter');
      const rows = await waitForScreen(page, (r) => promptCount(r) === 3, 'the recalled command to finish');
      assert.equal(rows.filter((row) => row === 'hello').length, 2, rows.join('\n'));
    });

    test('Ctrl-C stops a CPU-bound loop and the sandbox keeps its files', async (t) => {
      await typeLine(page, 'while true; do :; done');
      await new Promise((r) => setTimeout(r, 300)); // let the loop get going
      const stillRunning = await page.$eval('#terminal', (el) => el.running);
      assert.equal(stillRunning, true, 'the loop should still be running before Ctrl-C');
      await page.evaluate(() => {
        // Time from the key to the end of the command, seen from the page (reported, not
        // asserted: timing belongs to benchmarks).
        const terminal = document.getElementById('terminal');
        window.cancelLatency = new Promise((resolve) => {
          let pressed = 0;
          terminal.addEventListener('keydown', (e) => {
            if (e.ctrlKey && e.key === 'c') pressed = performance.now();
          }, { capture: true });
          terminal.addEventListener('command-end', () => resolve(performance.now() - pressed), { once: true });
        });
      });
      await page.keyboard.down('Control');
      await page.keyboard.press('c');
      await page.keyboard.up('Control');
      await waitForScreen(page, (r) => r.some((row) => row.includes('sandtab: cancelled')) && promptCount(r) === 4, 'the cancel to land', 5_000);
      t.diagnostic(`${name}: Ctrl-C to prompt took ${Math.round(await page.evaluate(() => window.cancelLatency))} ms`);
      await typeLine(page, 'cat /tmp/a; echo status=$?');
      const rows = await waitForScreen(page, (r) => promptCount(r) === 5, 'the command after the cancel');
      assert.ok(rows.includes('status=0'), rows.join('\n'));
      assert.equal(rows.filter((row) => row === 'hello').length, 3, rows.join('\n'));
    });

    test('a syntax error gets exit status 2 and a message', async () => {
      await page.evaluate(() => {
        window.commandEnds = [];
        document.getElementById('terminal').addEventListener('command-end', (e) => window.commandEnds.push(e.detail));
      });
      await typeLine(page, 'if then fi (');
      const rows = await waitForScreen(page, (r) => promptCount(r) === 6, 'the syntax error');
      assert.ok(rows.some((row) => row.includes('bash: -c: line 1: syntax error near unexpected token')), rows.join('\n'));
      assert.deepEqual(await page.evaluate(() => window.commandEnds), [{ command: 'if then fi (', exitCode: 2, saveError: null }]);
    });

    test('a program reads the lines typed to it; python3 is interactive; Ctrl-D ends it', async () => {
      // A clear screen, so that prompts are counted from one (Ctrl-L, as in bash).
      const clear = async () => {
        await page.keyboard.down('Control');
        await page.keyboard.press('l');
        await page.keyboard.up('Control');
        await waitForScreen(page, (r) => promptCount(r) === 1 && r.filter(Boolean).length === 1, 'a clear screen');
      };
      await page.focus('#terminal .xterm-helper-textarea');
      await clear();
      await typeLine(page, 'python3 -c "print(input(\'word? \')[::-1])"');
      await waitForScreen(page, (r) => r.some((row) => row.startsWith('word?')), "python's prompt", 60_000);
      await page.keyboard.type('stresxx');
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Backspace');
      await page.keyboard.type('sed');
      await page.keyboard.press('Enter');
      let rows = await waitForScreen(page, (r) => promptCount(r) === 2, 'python to end', 30_000);
      assert.ok(rows.includes('word? stressed'), rows.join('\n'));
      assert.ok(rows.includes('desserts'), rows.join('\n'));

      // The interactive interpreter: prompts, a block, Ctrl-D to leave; what a shell
      // function runs meanwhile does not wait for the terminal.
      await clear();
      await typeLine(page, 'f() { echo in-f; }; f; python3');
      await waitForScreen(page, (r) => r.some((row) => row.startsWith('>>>')), 'the >>> prompt', 30_000);
      // Each line once Python asks for it (`>>>`, or `...` inside the block).
      const asking = (rows) => ['>>>', '...'].includes(rows.filter(Boolean).at(-1));
      for (const line of ['x = 6', 'for i in range(2):', '    print(x * 7 + i)', '']) {
        const before = (await screen(page)).filter(Boolean).length;
        await page.keyboard.type(line);
        await page.keyboard.press('Enter');
        await waitForScreen(page, (r) => r.filter(Boolean).length > before && asking(r), `python to ask after ${JSON.stringify(line)}`, 30_000);
      }
      await waitForScreen(page, (r) => r.includes('43'), 'the block to run', 30_000);
      // Ctrl-C at the prompt, with a line half typed: KeyboardInterrupt, and the
      // interpreter goes on with what it had.
      await page.keyboard.type('x = 1000');
      await page.keyboard.down('Control');
      await page.keyboard.press('c');
      await page.keyboard.up('Control');
      await waitForScreen(page, (r) => r.includes('KeyboardInterrupt') && asking(r), 'KeyboardInterrupt', 30_000);
      await page.keyboard.type('print(x)');
      await page.keyboard.press('Enter');
      rows = await waitForScreen(page, (r) => r.includes('6') && asking(r), 'the interpreter after Ctrl-C', 30_000);
      assert.ok(rows.includes('>>> x = 1000^C'), rows.join('\n'));
      assert.equal(rows[rows.indexOf('>>> x = 1000^C') + 1], 'KeyboardInterrupt', rows.join('\n'));
      await page.keyboard.down('Control');
      await page.keyboard.press('d');
      await page.keyboard.up('Control');
      rows = await waitForScreen(page, (r) => promptCount(r) === 2, 'Ctrl-D to end python3', 30_000);
      assert.ok(rows.includes('in-f'), rows.join('\n'));
      assert.ok(rows.some((row) => row.startsWith('Python 3.12')), rows.join('\n'));
      assert.ok(rows.includes('>>> x = 6'), rows.join('\n'));
      assert.ok(rows.includes('42'), rows.join('\n'));

      // A line typed while a command that reads nothing runs is run after it.
      await clear();
      await typeLine(page, 'sleep 1');
      await typeLine(page, 'echo typed-ahead');
      rows = await waitForScreen(page, (r) => promptCount(r) === 3 && r.includes('typed-ahead'), 'the typed-ahead line to run');
      assert.ok(rows.includes(`${PROMPT} echo typed-ahead`), rows.join('\n'));

      // Ctrl-C drops what was typed meanwhile, as a terminal's interrupt does.
      await clear();
      await typeLine(page, 'sleep 20');
      await typeLine(page, 'echo must-not-run');
      await page.keyboard.down('Control');
      await page.keyboard.press('c');
      await page.keyboard.up('Control');
      await waitForScreen(page, (r) => promptCount(r) === 2, 'the cancel');
      await typeLine(page, 'echo after-cancel');
      rows = await waitForScreen(page, (r) => promptCount(r) === 3 && r.includes('after-cancel'), 'the next command');
      assert.ok(!rows.includes('must-not-run'), rows.join('\n'));
    });

    test('line editing: wide characters, Ctrl-R, Ctrl-W, and history kept across a reload', async () => {
      await clearScreen(page);
      const ctrl = async (key) => {
        await page.keyboard.down('Control');
        await page.keyboard.press(key);
        await page.keyboard.up('Control');
      };
      const cursorOn = () => page.$eval('#terminal .xterm-rows .xterm-cursor', (el) => el.textContent);
      let prompts = 1;
      await page.focus('#terminal .xterm-helper-textarea');
      // The cursor lands on the cell xterm.js draws, after two-cell characters too.
      await page.keyboard.type('echo 字符👍X');
      await page.keyboard.press('ArrowLeft');
      await page.waitForFunction(() => document.querySelector('#terminal .xterm-rows .xterm-cursor')?.textContent === 'X', { timeout: 5_000 }).catch(async () => {
        assert.fail(`the cursor is on ${JSON.stringify(await cursorOn())}, not on X`);
      });
      await page.keyboard.type('Y');
      await page.keyboard.press('Enter');
      let rows = await waitForScreen(page, (r) => promptCount(r) === prompts + 1, 'the wide echo');
      assert.ok(rows.includes('字符👍YX'), rows.join('\n'));
      prompts++;
      // Ctrl-W takes the word before the cursor back.
      await page.keyboard.type('echo kept dropped');
      await ctrl('w');
      await page.keyboard.press('Enter');
      rows = await waitForScreen(page, (r) => promptCount(r) === prompts + 1, 'the Ctrl-W echo');
      assert.equal(aboveLastPrompt(rows).at(-1), 'kept');
      prompts++;
      // Ctrl-R finds the wide echo by what is typed, and Enter runs it.
      await ctrl('r');
      await page.keyboard.type('符');
      await waitForScreen(page, (r) => r.some((row) => row === "(reverse-i-search)`符': echo 字符👍YX"), 'the search');
      await page.keyboard.press('Enter');
      rows = await waitForScreen(page, (r) => promptCount(r) === prompts + 1, 'the found command');
      assert.equal(rows.filter((row) => row === '字符👍YX').length, 2, rows.join('\n'));
      // The history is the sandbox's: a reload keeps it.
      await page.reload();
      await waitForScreen(page, (r) => promptCount(r) === 1, 'the prompt after the reload');
      await page.focus('#terminal .xterm-helper-textarea');
      await page.keyboard.press('ArrowUp');
      await waitForScreen(page, (r) => r.some((row) => row === `${PROMPT} echo 字符👍YX`), 'the kept history');
      await ctrl('c');
    });

    test('Tab completes paths, commands and variables; a second Tab lists the choices', async () => {
      await clearScreen(page);
      let prompts = 1;
      await typeLine(page, 'mkdir -p compdir/inner && touch compdir/file-one.txt');
      prompts++;
      await waitForScreen(page, (r) => promptCount(r) === prompts, 'the setup');
      await page.keyboard.type('ls compd');
      await page.keyboard.press('Tab');
      await waitForScreen(page, (r) => r.includes(`${PROMPT} ls compdir/`), 'the directory completed');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      const listed = await waitForScreen(page, (r) => r.some((row) => /^file-one\.txt +inner\/$/.test(row)), 'the choices listed');
      // The prompt and the line come back under the list.
      const at = listed.findIndex((row) => /^file-one\.txt +inner\/$/.test(row));
      assert.equal(listed[at + 1], `${PROMPT} ls compdir/`);
      prompts++;
      await page.keyboard.type('f');
      await page.keyboard.press('Tab');
      await waitForScreen(page, (r) => r.includes(`${PROMPT} ls compdir/file-one.txt`), 'the file completed');
      await page.keyboard.press('Enter');
      prompts++;
      let rows = await waitForScreen(page, (r) => promptCount(r) === prompts, 'the ls');
      assert.equal(aboveLastPrompt(rows).at(-1), 'compdir/file-one.txt');
      // A variable, and a command.
      await page.keyboard.type('echo $HOM');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      prompts++;
      rows = await waitForScreen(page, (r) => promptCount(r) === prompts, 'the echo');
      assert.equal(aboveLastPrompt(rows).at(-1), '/home/agent', rows.join('\n'));
      await page.keyboard.type('seq');
      await page.keyboard.press('Tab');
      await page.keyboard.type('2');
      await page.keyboard.press('Enter');
      prompts++;
      rows = await waitForScreen(page, (r) => promptCount(r) === prompts, 'the seq');
      assert.deepEqual(aboveLastPrompt(rows).slice(-2), ['1', '2'], rows.join('\n'));
    });

    test('a command that goes on gets the > prompt; a pasted loop runs once, whole', async () => {
      await clearScreen(page);
      let prompts = 1;
      await page.$eval('#terminal', (el) => el.paste('for x in a b\ndo echo item-$x\ndone\n'));
      let rows = await waitForScreen(page, (r) => promptCount(r) === prompts + 1, 'the loop');
      const start = rows.findIndex((row) => row === `${PROMPT} for x in a b`);
      assert.ok(start >= 0, rows.join('\n'));
      assert.deepEqual(rows.slice(start + 1, start + 5), ['> do echo item-$x', '> done', 'item-a', 'item-b']);
      prompts++;
      // Typed: an open quote goes on to the next line, and Ctrl-C drops it all.
      await page.focus('#terminal .xterm-helper-textarea');
      await page.keyboard.type("echo 'one");
      await page.keyboard.press('Enter');
      await waitForScreen(page, (r) => r.includes('>'), 'the > prompt');
      await page.keyboard.down('Control');
      await page.keyboard.press('c');
      await page.keyboard.up('Control');
      await typeLine(page, 'echo after');
      rows = await waitForScreen(page, (r) => promptCount(r) === prompts + 2, 'the next command');
      assert.equal(aboveLastPrompt(rows).at(-1), 'after');
      assert.ok(!rows.includes('one'), rows.join('\n'));
    });

    test('nothing was logged as an error', () => {
      assert.deepEqual(errors, []);
    });
  });
}
