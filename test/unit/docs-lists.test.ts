/**
 * The lists the docs keep of the code match the code: the step systems of docs/architecture.md
 * are `systems/pipeline.ts`'s in its order, the live subscriptions of docs/game-rules.md §7 are
 * the postgres_changes tables and the broadcast topics `net/` joins, and the README's
 * configuration table names exactly the environment variables `readEnv` reads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as topics from '../../protocol/topics.js';
import { readEnv } from '../../server/config.js';

const read = (path: string) => readFileSync(path, 'utf8');

/** Every TypeScript source under `dir`, however it is divided into folders, as `{path: text}`. */
function sourcesUnder(dir: string): Record<string, string> {
  const sources: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (entry.endsWith('.ts')) sources[join(dir, entry)] = read(join(dir, entry));
  }
  return sources;
}

/** Source text without comments, so a name in a comment counts for nothing. */
function codeOf(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

/** The items `listed` and `actual` do not share, each side sorted, for a readable failure. */
function mismatch(listed: Iterable<string>, actual: Iterable<string>) {
  const a = new Set(listed);
  const b = new Set(actual);
  return { onlyListed: [...a].filter((item) => !b.has(item)).sort(), onlyInCode: [...b].filter((item) => !a.has(item)).sort() };
}

const NONE = { onlyListed: [], onlyInCode: [] };

// --- The step systems -------------------------------------------------------------------------

/** The files of the systems that `PIPELINE` runs, in order, read from the pipeline's source. */
function pipelineSystems(source: string): string[] {
  const fileOf = new Map<string, string>();
  for (const match of source.matchAll(/import \{ (\w+) \} from '\.\/([\w-]+)\.js';/g)) fileOf.set(match[1]!, `${match[2]}.ts`);
  const list = /PIPELINE\b[^=]*=\s*Object\.freeze\(\[([^\]]*)\]/.exec(source);
  if (!list) throw new Error('systems/pipeline.ts: no PIPELINE list');
  return list[1]!.split(',').map((name) => name.trim()).filter((name) => name !== '').map((name) => fileOf.get(name) ?? `${name} (not imported)`);
}

/** The system files the architecture's bullet "The order of a step" names, in its order. */
function systemsListed(markdown: string): string[] {
  const bullet = /^\* The order of a step \(`systems\/pipeline\.ts`\):([\s\S]*?)(?=^\* |^#)/m.exec(markdown);
  if (!bullet) throw new Error('docs/architecture.md: no bullet "The order of a step"');
  return [...bullet[1]!.matchAll(/`([\w-]+\.ts)`/g)].map((match) => match[1]!);
}

test('docs/architecture.md lists the step systems of systems/pipeline.ts, in its order', () => {
  assert.equal(systemsListed(read('docs/architecture.md')), pipelineSystems(read('systems/pipeline.ts')));
});

test('a system missing from the docs, or listed out of order, is a mismatch', () => {
  const pipeline = "import { a } from './apply-a.js';\nimport { b } from './apply-b.js';\nexport const PIPELINE: readonly System[] = Object.freeze([\n  a,\n  b,\n]);";
  assert.equal(pipelineSystems(pipeline), ['apply-a.ts', 'apply-b.ts']);
  const doc = (order: string) => `## Engine\n\n* The order of a step (\`systems/pipeline.ts\`): ${order}.\n* Next bullet (\`other.ts\`).\n`;
  assert.equal(systemsListed(doc('a (`apply-a.ts`) and b (`apply-b.ts`)')), ['apply-a.ts', 'apply-b.ts']);
  assert.not.equal(systemsListed(doc('b (`apply-b.ts`) and a (`apply-a.ts`)')), pipelineSystems(pipeline));
  assert.not.equal(systemsListed(doc('a (`apply-a.ts`)')), pipelineSystems(pipeline));
});

// --- The live subscriptions -------------------------------------------------------------------

/** What the client listens to: postgres_changes tables, broadcast topics by their prefix and the broadcast events. */
interface Subscriptions {
  tables: string[];
  topicPrefixes: string[];
  events: string[];
}

/** The rows of the table that follows "Live subscriptions" in docs/game-rules.md. */
function subscriptionsListed(markdown: string): Subscriptions {
  const start = markdown.indexOf('Live subscriptions');
  if (start < 0) throw new Error('docs/game-rules.md: no "Live subscriptions" table');
  const rows = /\n((?:\|.*\|\n)+)/.exec(markdown.slice(start))?.[1]?.split('\n').slice(2) ?? [];
  const listed: Subscriptions = { tables: [], topicPrefixes: [], events: [] };
  for (const row of rows.filter((line) => line !== '')) {
    const [heard, how, what] = row.split('|').slice(1, 4).map((cell) => cell.trim()) as [string, string, string];
    const name = /^`([^`]+)`$/.exec(heard)?.[1] ?? heard;
    if (how.startsWith('postgres_changes')) listed.tables.push(name);
    else if (how.startsWith('broadcast')) {
      listed.topicPrefixes.push(name.replace(/rx:ry$/, ''));
      listed.events.push(...[...what.matchAll(/`(\w+)`/g)].map((match) => match[1]!));
    }
    else throw new Error(`docs/game-rules.md: a subscription neither postgres_changes nor broadcast: ${row}`);
  }
  return listed;
}

/** The exports of protocol/topics.ts by name. */
const TOPICS = topics as unknown as Record<string, unknown>;

/** The topic builders of protocol/topics.ts with the prefix each puts first. */
function topicBuilders(source: string): Map<string, string> {
  const builders = new Map<string, string>();
  for (const match of source.matchAll(/export function (\w+)\([^)]*\): string \{\s*return (\w+_TOPIC_PREFIX) \+/g)) {
    builders.set(match[1]!, String(TOPICS[match[2]!]));
  }
  return builders;
}

/**
 * What the sources of `net/` subscribe to: the tables named in a file that listens to
 * postgres_changes, the prefix of every topic builder of protocol/topics.ts that they call, and
 * the events (constants of protocol/topics.ts) of their broadcast listeners.
 */
function subscriptionsJoined(sources: Record<string, string>, builders: Map<string, string>): Subscriptions {
  const tables = new Set<string>();
  const topicPrefixes = new Set<string>();
  const events = new Set<string>();
  for (const source of Object.values(sources).map(codeOf)) {
    if (source.includes("'postgres_changes'")) for (const match of source.matchAll(/\btable: '(\w+)'/g)) tables.add(match[1]!);
    for (const [builder, prefix] of builders) if (new RegExp(`\\b${builder}\\(`).test(source)) topicPrefixes.add(prefix);
    for (const match of source.matchAll(/\.on\(\s*'broadcast',\s*\{\s*event: (\w+)/g)) events.add(String(TOPICS[match[1]!] ?? `${match[1]} (not in protocol/topics.ts)`));
  }
  return { tables: [...tables], topicPrefixes: [...topicPrefixes], events: [...events] };
}

test('docs/game-rules.md §7 lists the postgres_changes tables and the topics net/ joins', () => {
  const listed = subscriptionsListed(read('docs/game-rules.md'));
  const joined = subscriptionsJoined(sourcesUnder('net'), topicBuilders(read('protocol/topics.ts')));
  assert.equal(mismatch(listed.tables, joined.tables), NONE);
  assert.equal(mismatch(listed.topicPrefixes, joined.topicPrefixes), NONE);
  assert.equal(mismatch(listed.events, joined.events), NONE);
  assert.ok(joined.tables.length > 0 && joined.topicPrefixes.length > 0, 'found no subscription in net/ at all');
});

test('every topic prefix of protocol/topics.ts has a builder the check recognises', () => {
  const source = read('protocol/topics.ts');
  const prefixes = [...source.matchAll(/export const (\w+_TOPIC_PREFIX) = '([^']+)'/g)].map((match) => match[2]!);
  assert.equal([...topicBuilders(source).values()].sort(), prefixes.sort());
});

test('a subscription the docs leave out, or one net/ no longer joins, is a mismatch', () => {
  const doc = [
    'Live subscriptions:', '', '| Heard on | How | What |', '|---|---|---|',
    '| `game_chat_messages` | postgres_changes | inserts |', '| `region:rx:ry` | broadcast, private | events `pose` and `batch` |', '',
  ].join('\n');
  assert.equal(subscriptionsListed(doc), { tables: ['game_chat_messages'], topicPrefixes: ['region:'], events: ['pose', 'batch'] });
  const builders = new Map([['regionTopic', 'region:'], ['blocksTopic', 'blocks:']]);
  const sources = {
    'net/chat/chat.ts': ".on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'game_chat_messages' })",
    'net/live/poses.ts': "db.channel(regionTopic(centre)).on('broadcast', { event: POSE_EVENT }); // blocksTopic(x) only in a comment",
    'net/blocks/regions.ts': "const table = { table: 'game_blocks' }; db.channel(blocksTopic(region)); // no postgres_changes here",
  };
  const joined = subscriptionsJoined(sources, builders);
  assert.equal(mismatch(subscriptionsListed(doc).tables, joined.tables), NONE);
  assert.equal(mismatch(subscriptionsListed(doc).topicPrefixes, joined.topicPrefixes), { onlyListed: [], onlyInCode: ['blocks:'] });
  assert.equal(mismatch(subscriptionsListed(doc).events, joined.events), { onlyListed: ['batch'], onlyInCode: [] });
  const voice = { ...sources, 'net/voice.ts': ".on('postgres_changes', { table: 'game_voice_messages' })" };
  assert.equal(mismatch(subscriptionsListed(doc).tables, subscriptionsJoined(voice, builders).tables), { onlyListed: [], onlyInCode: ['game_voice_messages'] });
});

// --- The README's configuration ---------------------------------------------------------------

/** The variables of the table in the README's "Configuration" section. */
function configurationListed(markdown: string): string[] {
  const section = /^## Configuration\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1];
  if (!section) throw new Error('README.md: no "Configuration" section');
  return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((match) => match[1]!);
}

/** The environment variables `read` looks at, every one unset. */
function variablesRead(read: (env: NodeJS.ProcessEnv) => unknown): string[] {
  const names = new Set<string>();
  const env = new Proxy({} as NodeJS.ProcessEnv, {
    get(_, key) {
      if (typeof key === 'string') names.add(key);
      return undefined;
    },
  });
  read(env);
  return [...names];
}

test("the README's configuration table names exactly the variables readEnv reads", () => {
  assert.equal(mismatch(configurationListed(read('README.md')), variablesRead(readEnv)), NONE);
});

test('a variable readEnv reads that the README leaves out, or one it no longer reads, is a mismatch', () => {
  const readme = '## Configuration\n\n| Variable | Default | Meaning |\n|---|---|---|\n| `PORT` | `5173` | Port |\n| `OLD_SETTING` | unset | Gone |\n\nNot a row: `DATA_DIR`.\n\n## Deploy\n';
  assert.equal(configurationListed(readme), ['PORT', 'OLD_SETTING']);
  const reads = (env: NodeJS.ProcessEnv) => ({ port: env.PORT, host: env['HOST'] });
  assert.equal(mismatch(configurationListed(readme), variablesRead(reads)), { onlyListed: ['OLD_SETTING'], onlyInCode: ['HOST'] });
});

test.run();
