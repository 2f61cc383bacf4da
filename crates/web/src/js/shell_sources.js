// The shell interpreter (bashkit) reads its clocks through `performance.now()` and
// `Date.now()` (`$SECONDS`, `time`, history times, its deadlines) and draws `$SRANDOM`
// through `crypto.getRandomValues()` (getrandom's browser backend), and offers no hook
// for any of them. A recording or replaying sandbox puts those on its tape, so while one
// is open in this worker the three functions go through its hooks. The runtime's own
// readings (the sandbox's clock, guests' clocks and random bytes, pacing) use the
// `real*` functions, taken before anything could replace them.
const perfNow = performance.now.bind(performance);
const dateNow = Date.now.bind(Date);
// A worker without Web Crypto still loads; only a draw fails, saying why.
const webCrypto = globalThis.crypto;
const getRandomValues = webCrypto
  ? webCrypto.getRandomValues.bind(webCrypto)
  : () => {
      throw new Error('crypto.getRandomValues is not available in this worker');
    };
const own = [
  [performance, 'now'],
  [Date, 'now'],
  [webCrypto, 'getRandomValues'],
]
  .filter(([target]) => target)
  .map(([target, name]) => [target, name, Object.getOwnPropertyDescriptor(target, name)]);

export function realNow() {
  return perfNow();
}

export function realDateNow() {
  return dateNow();
}

export function realRandom(array) {
  getRandomValues(array);
}

// `clock(kind, real)` answers a reading (kind 0: performance.now, 1: Date.now);
// `random(length)` answers with that many bytes. `memory` is the runtime's: an array
// it passes in may be a view of it, which a hook that grows the memory detaches.
export function setHooks(clock, random, memory) {
  replace(performance, 'now', function now() {
    return clock(0, perfNow());
  });
  replace(Date, 'now', function now() {
    return clock(1, dateNow());
  });
  if (!webCrypto) return;
  replace(webCrypto, 'getRandomValues', function getRandomValues(array) {
    const integers = INTEGER_ARRAYS.some((type) => array instanceof type);
    // Anything the real function refuses, it refuses (with its own error).
    if (!integers || array.byteLength > 65536) return getRandomValues(array);
    const { byteOffset, byteLength } = array;
    const onMemory = array.buffer === memory.buffer;
    const bytes = random(byteLength);
    const target = onMemory ? memory.buffer : array.buffer;
    new Uint8Array(target, byteOffset, byteLength).set(bytes);
    return array;
  });
}

export function clearHooks() {
  for (const [target, name, descriptor] of own) {
    if (descriptor) Object.defineProperty(target, name, descriptor);
    else delete target[name];
  }
}

const INTEGER_ARRAYS = [
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array,
];

function replace(target, name, value) {
  Object.defineProperty(target, name, { configurable: true, writable: true, value });
}
