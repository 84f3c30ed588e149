/**
 * Server suites are found by their folder: every suite under test/server sits in a folder that
 * names its part of the server or the game, none at the top, and the `test:server` script runs
 * every suite (in every folder) and nothing that is not one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = 'test/server';

/** Every file under `dir`, as a path relative to `ROOT` with `/` separators. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [relative(ROOT, path).split('\\').join('/')];
  });
}

/** The pattern the `test:server` script gives uvu, which matches it against those relative paths. */
function serverSuitePattern(): RegExp {
  const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
  const match = /uvu -r tsx (?:-r \S+ )?test\/server '([^']+)'/.exec(scripts['test:server']!);
  assert.ok(match, `test:server names its pattern: ${scripts['test:server']}`);
  return new RegExp(match[1]!, 'i');
}

test('no suite sits at the top of test/server: each is in a folder', () => {
  const flat = filesUnder(ROOT).filter((file) => file.endsWith('.test.ts') && !file.includes('/'));
  assert.equal(flat, []);
});

test('test:server runs every suite in every folder, and not the published headless-player re-export or type declarations', () => {
  const pattern = serverSuitePattern();
  const files = filesUnder(ROOT);
  const suites = files.filter((file) => file.endsWith('.test.ts'));
  assert.ok(suites.length > 50, `${suites.length} suites found`);
  assert.equal(suites.filter((file) => !pattern.test(file)), []);
  assert.equal(files.filter((file) => !file.endsWith('.test.ts') && pattern.test(file)), []);
  assert.ok(files.includes('headless-player.ts'), 'the published path test/server/headless-player.ts is kept');
});

test.run();
