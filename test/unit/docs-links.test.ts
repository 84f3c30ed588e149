/**
 * Every relative link in README.md, bench/README.md and docs/*.md names a file that exists, and
 * every `#anchor` in it names a heading of its target, as GitHub renders headings into anchors.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const DOCUMENTS = ['README.md', 'bench/README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** Markdown without fenced code blocks and inline code spans, where brackets are not links. */
function proseOf(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings; a repeated heading gets `-1`, `-2`, ... as on GitHub. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const match of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = anchorOf(match[1]!);
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** The broken relative links of one document at `path` with the given text, each with its reason. */
function brokenLinks(path: string, markdown: string, read: (file: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const match of proseOf(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [file, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = file === '' ? path : normalize(join(dirname(path), decodeURIComponent(file)));
    const text = read(resolved);
    if (text === undefined) broken.push(`${path}: ${target} (no file ${resolved})`);
    else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(text).has(anchor)) broken.push(`${path}: ${target} (no heading #${anchor} in ${resolved})`);
  }
  return broken;
}

/** A file's text from the working tree, '' for a directory, undefined when it does not exist. */
function readRepoFile(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

test('every relative link and anchor in the README, bench/README.md and docs/ resolves', () => {
  const broken = DOCUMENTS.flatMap((path) => brokenLinks(path, readFileSync(path, 'utf8'), readRepoFile));
  assert.equal(broken, []);
});

test('a link to a missing file or heading is reported, links in code and to other sites are not', () => {
  const files: Record<string, string> = { 'docs/rules.md': '# What the server decides\n\n## 4. Auth: sign in (and more)\n## Names\n## Names\n' };
  const page = [
    '[ok](rules.md#4-auth-sign-in-and-more) [ok](rules.md#names-1) [ok](#here) [web](https://example.com/x.md)',
    '[gone](moved.md) [no heading](rules.md#health) `[in code](nowhere.md)`',
    '```', '[fenced](nowhere.md)', '```',
    '## Here',
  ].join('\n');
  const read = (file: string) => (file === 'docs/page.md' ? page : files[file]);
  assert.equal(brokenLinks('docs/page.md', page, read), [
    'docs/page.md: moved.md (no file docs/moved.md)',
    'docs/page.md: rules.md#health (no heading #health in docs/rules.md)',
  ]);
});

test.run();
