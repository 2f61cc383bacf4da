// The worker-side hooks a recording sandbox puts on performance.now, Date.now and
// crypto.getRandomValues (crates/web/src/js/shell_sources.js), in Node's own globals:
// readings and draws go to the hooks, the real functions stay reachable, an array
// on a memory the hook grows still gets its bytes, and clearing puts everything back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clearHooks, realDateNow, realNow, realRandom, setHooks } from '../../crates/web/src/js/shell_sources.js';

test('the hooks answer while set, and the real functions stay real', () => {
  const seen = [];
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 4 });
  setHooks(
    (kind, real) => {
      seen.push([kind, typeof real]);
      return kind === 0 ? 1234.5 : 42_000;
    },
    (length) => {
      memory.grow(1); // detaches every view of the old buffer
      return Uint8Array.from({ length }, (_, i) => i + 1);
    },
    memory,
  );
  try {
    assert.equal(performance.now(), 1234.5);
    assert.equal(Date.now(), 42_000);
    assert.deepEqual(seen, [[0, 'number'], [1, 'number']]);
    assert.ok(realNow() > 0 && realNow() !== 1234.5);
    assert.ok(Math.abs(realDateNow() - new Date().getTime()) < 5_000);

    // An array that is a view of the memory, as the runtime's glue passes it.
    const view = new Uint8Array(memory.buffer, 100, 4);
    crypto.getRandomValues(view);
    assert.equal(view.byteLength, 0, 'the hook grew the memory: the old view is detached');
    assert.deepEqual([...new Uint8Array(memory.buffer, 100, 4)], [1, 2, 3, 4]);

    // Any other integer array gets the bytes too; what the real function refuses it refuses.
    const words = new Uint16Array(2);
    crypto.getRandomValues(words);
    assert.deepEqual([...new Uint8Array(words.buffer)], [1, 2, 3, 4]);
    assert.throws(() => crypto.getRandomValues(new Float64Array(1)));
    assert.throws(() => crypto.getRandomValues(new Uint8Array(65_537)));

    const real = new Uint8Array(32);
    realRandom(real);
    assert.ok(real.some((b) => b !== 0), 'realRandom draws from the real source');
  } finally {
    clearHooks();
  }
  assert.notEqual(performance.now(), 1234.5);
  assert.notEqual(Date.now(), 42_000);
  assert.equal(Object.getOwnPropertyDescriptor(performance, 'now'), undefined, 'back on the prototype');
  const after = new Uint8Array(8);
  crypto.getRandomValues(after);
  assert.notDeepEqual([...after], [1, 2, 3, 4, 5, 6, 7, 8]);
});
