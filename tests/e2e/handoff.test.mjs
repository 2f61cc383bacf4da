// A sandbox handed from a tab to Node and back: the tab's files (modes, times, a
// symlink), its session (cd, variables, a function) and options go to a Node sandbox
// (the npm package's `node` export, a worker_threads worker), which works on and hands
// the result back; the tab resumes it in a new sandbox, with equal tree digests. The
// capability document travels without the secret the page keeps.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox as NodeSandbox } from 'sandtab';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT } from './screen.mjs';

const SECRET = 'sk-handoff-0123456789';

for (const name of browserNames) {
  describe(`hand-off tab → Node → tab in ${name}`, () => {
    let site;
    let browser;
    let page;

    before(async () => {
      site = await serve(DEMO_ROOT);
      browser = await launch(name);
      ({ page } = await openPage(browser, `${site.url}?sandbox=handoff-${Date.now()}`));
      await page.waitForFunction(() => window.sandtab?.Sandbox !== undefined);
    });

    after(async () => {
      await browser?.close();
      await site?.close();
    });

    test('files, sessions and options go to Node and come back equal', async () => {
      const stamp = Date.now();
      const handed = await page.evaluate(
        async (stamp, secret) => {
          const { Sandbox } = window.sandtab;
          const tab = await Sandbox.create({
            name: `handoff-tab-${stamp}`,
            limits: { maxLoopIterations: 5000 },
            capabilities: { network: { allow: [{ origin: 'http://127.0.0.1:9', headers: { authorization: `Bearer ${secret}` } }] } },
          });
          const run = await tab.exec(
            "mkdir -p app/lib && printf 'print(1)\\n' > app/main.py && chmod 700 app/lib && ln -s app/main.py entry && " +
              'touch -d 2020-01-02 app/main.py && cd app && export STAGE=tab && greet() { echo "hi from $STAGE in $(pwd)"; }',
          );
          const handoff = await tab.handoff();
          tab.terminate();
          return { run, handoff };
        },
        stamp,
        SECRET,
      );
      assert.equal(handed.run.exitCode, 0, handed.run.stderr);
      assert.equal(handed.handoff.format, 'sandtab-handoff');
      assert.ok(!JSON.stringify(handed.handoff).includes(SECRET), 'the secret stays on the page');
      assert.equal(handed.handoff.options.limits.maxLoopIterations, 5000);

      // Node works on it.
      const server = await NodeSandbox.create({ storage: 'memory', resume: handed.handoff });
      let back;
      try {
        const there = await server.exec('greet; stat -c %a lib; readlink ../entry; cat main.py');
        assert.equal(there.stdout, 'hi from tab in /home/agent/app\n700\napp/main.py\nprint(1)\n', there.stderr);
        const limited = await server.exec('for ((i = 0; i < 6000; i++)); do :; done');
        assert.equal(limited.exitCode, 126, 'the limits came along');
        const work = await server.exec('export STAGE=node && echo built > out.txt && mkdir -p dist && cd dist');
        assert.equal(work.exitCode, 0, work.stderr);
        back = await server.handoff();
      } finally {
        server.terminate();
      }

      // The tab resumes Node's result in a new sandbox.
      const resumed = await page.evaluate(
        async (stamp, back) => {
          const { Sandbox } = window.sandtab;
          const again = await Sandbox.create({ name: `handoff-back-${stamp}`, resume: back });
          const run = await again.exec('pwd; greet; cat ../out.txt; stat -c %Y ../main.py');
          const tree = (await again.handoff()).tree;
          again.terminate();
          return { run, tree };
        },
        stamp,
        back,
      );
      assert.equal(
        resumed.run.stdout,
        `/home/agent/app/dist\nhi from node in /home/agent/app/dist\nbuilt\n${Date.UTC(2020, 0, 2) / 1000}\n`,
        resumed.run.stderr,
      );
      assert.equal(resumed.tree, back.tree, 'the same tree, bit for bit');
      assert.notEqual(back.tree, handed.handoff.tree, 'Node changed it');
    });

    test('a damaged hand-off is refused, naming why', async () => {
      const outcome = await page.evaluate(async () => {
        const { Sandbox } = window.sandtab;
        const tab = await Sandbox.create({ storage: 'memory' });
        await tab.exec('echo one > f');
        const handoff = await tab.handoff();
        tab.terminate();
        const file = handoff.entries.find((entry) => entry.path === '/home/agent/f');
        file.data = btoa('two\n');
        return Sandbox.create({ storage: 'memory', resume: handoff }).then(
          () => null,
          (err) => ({ code: err.code, message: err.message }),
        );
      });
      assert.equal(outcome?.code, 'EUCLEAN', JSON.stringify(outcome));
      assert.match(outcome.message, /tree digests differ/);
    });
  });
}
