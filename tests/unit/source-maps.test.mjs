// Source maps ship their sources: the npm package (web/dist) and the demo (www/dist) hold
// no TypeScript, so a map must carry each file it names, or devtools shows nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

function maps(dir) {
  return readdirSync(dir, { recursive: true })
    .filter((file) => file.endsWith('.js.map'))
    .map((file) => join(dir, file));
}

for (const built of ['web/dist', 'www/dist']) {
  test(`every source map in ${built} carries the sources it names`, () => {
    const dir = new URL(`../../${built}/`, import.meta.url).pathname;
    const found = maps(dir);
    assert.ok(found.length > 0, `no source maps in ${built}`);
    for (const file of found) {
      const map = JSON.parse(readFileSync(file, 'utf8'));
      assert.ok(map.sources.length > 0, file);
      assert.equal(map.sourcesContent?.length, map.sources.length, `${file} names sources it does not carry`);
      assert.ok(map.sourcesContent.every((text) => typeof text === 'string'), `${file} has an empty source`);
    }
  });
}
