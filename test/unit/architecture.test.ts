import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  exportsPureConstant,
  findCycles,
  importGraph,
  layerOf,
  longFunctions,
  parseModule,
  sourceFiles,
  undocumentedExports,
  type ImportEdge,
} from '../support/architecture.js';

/** The folders whose modules are checked (with every repository module they import). */
const CHECKED_FOLDERS = ['protocol', 'components', 'systems', 'net', 'src', 'server', 'bench', 'test/support'];

/** The longest a function in {@link LENGTH_CHECKED} may be without a `// Long because:` reason. */
const MAX_FUNCTION_LINES = 80;

/** The folders whose functions are held to {@link MAX_FUNCTION_LINES}. */
const LENGTH_CHECKED = ['server', 'net', 'src', 'systems'];

/** Where drawing lives: it reads the world and draws, so it imports only drawing and components. */
const DRAWING = 'systems/draw/';

/** The modules of systems/ that are not step systems: the order of a step and the fixed-step loop. */
const NOT_STEP_SYSTEMS = ['systems/pipeline.ts', 'systems/loop.ts'];

/**
 * What each folder may import from the repository: the layers point one way,
 * `src -> systems, net -> components -> protocol`, and the server stands apart (see
 * {@link serverMayImport}) on the protocol too. The protocol, the contract every part shares,
 * imports nothing else. Nothing in the product imports from test/ or bench/; benchmarks and
 * fixtures take their fixtures from test/support/ only, never from a suite's folder.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  protocol: ['protocol'],
  components: ['components', 'protocol'],
  systems: ['systems', 'components', 'protocol'],
  net: ['net', 'components', 'protocol'],
  src: ['src', 'systems', 'net', 'components', 'protocol'],
  server: ['server', 'protocol'],
  bench: ['bench', 'test/support', 'src', 'systems', 'net', 'components', 'protocol', 'server'],
  'test/support': ['test/support', 'src', 'systems', 'net', 'components', 'protocol', 'server'],
};

/** The arithmetic of the interest centre and its 3x3 regions. */
const INTEREST_CENTRE = 'net/interest/centre.ts';
/** The one module of the product that may use {@link INTEREST_CENTRE}: the session's one interest. */
const INTEREST_KEEPER = 'net/interest/interest.ts';

/** The folders of the product (the rest, bench/ and test/support/, may reproduce the client). */
const PRODUCT = ['protocol', 'components', 'systems', 'net', 'src', 'server'];

/** An offence found: where it is, and what it is. */
interface Offence {
  where: string;
}

/** The server may take types, and constants whose values are literals, from components/; nothing else from the client. */
function serverMayImport(edge: ImportEdge): boolean {
  if (layerOf(edge.to) !== 'components') return false;
  if (edge.typeOnly) return true;
  const target = parseModule(edge.to);
  return edge.values.every((name) => exportsPureConstant(target, name));
}

/** Every import that runs against the layers. */
function layerOffences(edges: readonly ImportEdge[]): Offence[] {
  const offences: Offence[] = [];
  for (const edge of edges) {
    const allowed = MAY_IMPORT[layerOf(edge.from)];
    if (!allowed || allowed.includes(layerOf(edge.to))) continue;
    if (layerOf(edge.from) === 'server' && serverMayImport(edge)) continue;
    const values = edge.typeOnly ? 'types' : edge.values.join(', ');
    offences.push({ where: `${edge.from}:${edge.line} imports ${edge.to} (${values})` });
  }
  return offences;
}

/**
 * Every module of the product but {@link INTEREST_KEEPER} that imports {@link INTEREST_CENTRE}:
 * the interest centre and its 3x3 regions are kept once, and blocks, presence and poses follow
 * that one interest instead of keeping a centre of their own.
 */
function interestOffences(edges: readonly Pick<ImportEdge, 'from' | 'to' | 'line'>[]): Offence[] {
  return edges
    .filter((edge) => edge.to === INTEREST_CENTRE && edge.from !== INTEREST_KEEPER && PRODUCT.includes(layerOf(edge.from)))
    .map((edge) => ({ where: `${edge.from}:${edge.line} computes an interest centre of its own (imports ${edge.to}); follow ${INTEREST_KEEPER}` }));
}

/** Every import cycle, as a path from its first module back to itself. */
function cycleOffences(edges: readonly ImportEdge[]): Offence[] {
  return findCycles(edges).map((cycle) => ({ where: cycle }));
}

/**
 * Every import of a drawing module from outside drawing and components/: the renderer only
 * draws, so it takes no input module, no step system and nothing of the page.
 */
function drawingOffences(edges: readonly Pick<ImportEdge, 'from' | 'to' | 'line'>[]): Offence[] {
  return edges
    .filter((edge) => edge.from.startsWith(DRAWING) && !edge.to.startsWith(DRAWING) && layerOf(edge.to) !== 'components')
    .map((edge) => ({ where: `${edge.from}:${edge.line} draws, yet imports ${edge.to}` }));
}

/**
 * Every top-level module of systems/ that is not a step system listed in systems/pipeline.ts
 * (the pipeline and the loop aside), and every drawing module the pipeline runs: drawing is no
 * step, and a step system is one the pipeline runs.
 */
function stepSystemOffences(files: readonly string[], edges: readonly Pick<ImportEdge, 'from' | 'to'>[]): Offence[] {
  const run = new Set(edges.filter((edge) => edge.from === 'systems/pipeline.ts').map((edge) => edge.to));
  const unlisted = files
    .filter((file) => /^systems\/[^/]+\.ts$/.test(file) && !NOT_STEP_SYSTEMS.includes(file) && !run.has(file))
    .map((file) => ({ where: `${file} is in systems/ but not a step of systems/pipeline.ts` }));
  const drawn = [...run].filter((file) => file.startsWith(DRAWING)).map((file) => ({ where: `systems/pipeline.ts runs ${file}, which draws` }));
  return [...unlisted, ...drawn];
}

/** Every function in the folders of {@link LENGTH_CHECKED} over the limit without a reason. */
function lengthOffences(): Offence[] {
  return sourceFiles(LENGTH_CHECKED).flatMap((file) =>
    longFunctions(parseModule(file), MAX_FUNCTION_LINES).map((found) => ({
      where: `${found.file}:${found.line} ${found.name} is ${found.lines} lines`,
    })),
  );
}

/** Fails listing every offence found (the first 20, and how many more). */
function assertNone(offences: readonly Offence[]): void {
  const more = offences.length > 20 ? `\n... and ${offences.length - 20} more` : '';
  const shown = offences.slice(0, 20).map((offence) => offence.where).join('\n') + more;
  assert.ok(offences.length === 0, `${offences.length} offences:\n${shown}`);
}

const edges = importGraph(CHECKED_FOLDERS);

test('the import graph is read from the sources: the engine pipeline imports its systems, type-only imports included', () => {
  const pipeline = edges.filter((edge) => edge.from === 'systems/pipeline.ts');
  assert.ok(pipeline.length > 10);
  assert.ok(pipeline.every((edge) => /^(systems|components)\//.test(edge.to)));
  assert.ok(edges.some((edge) => edge.typeOnly && edge.values.length === 0));
});

test('no module imports itself through others, type-only imports included', () => {
  assertNone(cycleOffences(edges));
});

test('layers point one way: protocol <- components <- systems, net <- src; the server takes the protocol and only pure constants and types from components; nothing in the product imports test/ or bench/, and fixtures come from test/support', () => {
  assertNone(layerOffences(edges));
});

test(`no function in ${LENGTH_CHECKED.join('/, ')}/ is over ${MAX_FUNCTION_LINES} lines without a reason beside it`, () => {
  assertNone(lengthOffences());
});

test('the renderer only draws: drawing modules import only drawing and components (no input, no step system, nothing of the page)', () => {
  assertNone(drawingOffences(edges));
});

test('systems/ holds step systems: each top-level module but the pipeline and the loop is run by systems/pipeline.ts, which runs no drawing', () => {
  assertNone(stepSystemOffences(sourceFiles(['systems']), edges));
});

test('a drawing module importing an input or step module is found; drawing and components are not', () => {
  const found = drawingOffences([
    { from: 'systems/draw/draw-world.ts', to: 'systems/draw/character.ts', line: 1 },
    { from: 'systems/draw/draw-world.ts', to: 'components/camera.ts', line: 2 },
    { from: 'systems/draw/draw-world.ts', to: 'systems/read-input.ts', line: 3 },
    { from: 'systems/draw/draw-world.ts', to: 'src/game/pick-tile.ts', line: 4 },
    { from: 'systems/read-input.ts', to: 'systems/draw/draw-world.ts', line: 5 },
  ]);
  assert.equal(found.map((offence) => offence.where), [
    'systems/draw/draw-world.ts:3 draws, yet imports systems/read-input.ts',
    'systems/draw/draw-world.ts:4 draws, yet imports src/game/pick-tile.ts',
  ]);
});

test('a module of systems/ the pipeline does not run, and drawing the pipeline runs, are found', () => {
  const files = ['systems/pipeline.ts', 'systems/loop.ts', 'systems/move-players.ts', 'systems/render-world.ts', 'systems/draw/draw-world.ts'];
  const found = stepSystemOffences(files, [
    { from: 'systems/pipeline.ts', to: 'systems/move-players.ts' },
    { from: 'systems/pipeline.ts', to: 'systems/draw/draw-world.ts' },
    { from: 'systems/loop.ts', to: 'systems/render-world.ts' },
  ]);
  assert.equal(found.map((offence) => offence.where), [
    'systems/render-world.ts is in systems/ but not a step of systems/pipeline.ts',
    'systems/pipeline.ts runs systems/draw/draw-world.ts, which draws',
  ]);
});

test('one interest: only net/interest/interest.ts of the product imports the interest centre arithmetic', () => {
  assertNone(interestOffences(edges));
});

test('a second keeper of the interest centre is found; the keeper itself and the load bots are not', () => {
  const found = interestOffences([
    { from: 'net/interest/interest.ts', to: INTEREST_CENTRE, line: 17 },
    { from: 'test/support/load/bot.ts', to: INTEREST_CENTRE, line: 18 },
    { from: 'net/poses/poses.ts', to: INTEREST_CENTRE, line: 30 },
    { from: 'net/poses/poses.ts', to: 'net/interest/interest.ts', line: 31 },
  ]);
  assert.equal(found.map((offence) => offence.where), [
    'net/poses/poses.ts:30 computes an interest centre of its own (imports net/interest/centre.ts); follow net/interest/interest.ts',
  ]);
});

test('every export of the product (protocol, components, systems, net, src, server) has JSDoc', () => {
  const files = sourceFiles(PRODUCT);
  assertNone(files.flatMap((file) => undocumentedExports(parseModule(file)).map((where) => ({ where }))));
});

test('an export without JSDoc is found; a documented one and a re-export are not', () => {
  const source = parseModule('sample.ts', '/** Documented. */\nexport const a = 1;\nexport const b = 2;\nexport { a as c };\n');
  assert.equal(undocumentedExports(source), ['sample.ts:3 export const b = 2;']);
});

test('a cycle is reported once, from its first module round to it, shortest first; an acyclic graph has none', () => {
  const cycle = [
    { from: 'c.ts', to: 'a.ts' },
    { from: 'a.ts', to: 'b.ts' },
    { from: 'b.ts', to: 'c.ts' },
    { from: 'b.ts', to: 'd.ts' },
    { from: 'd.ts', to: 'b.ts' },
  ];
  assert.equal(findCycles(cycle), ['b.ts -> d.ts -> b.ts', 'a.ts -> b.ts -> c.ts -> a.ts']);
  assert.equal(findCycles([{ from: 'a.ts', to: 'b.ts' }, { from: 'a.ts', to: 'c.ts' }, { from: 'b.ts', to: 'c.ts' }]), []);
});

test('a function over the limit is found by name unless the line above it or its first line says why', () => {
  const body = (count: number) => Array.from({ length: count - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
  const text = [
    `/** Documented. */\nexport function tooLong() {\n${body(5)}\n}`,
    `export const arrow = () => {\n${body(5)}\n};`,
    `/** Documented. */\n// Long because: one table read top to bottom.\nexport function excused() {\n${body(5)}\n}`,
    `export function firstLine() { // Long because: one switch.\n${body(5)}\n}`,
    `export function short() {\n${body(4)}\n}`,
    `class Box {\n  method() {\n${body(5)}\n  }\n}`,
  ].join('\n');
  const found = longFunctions(parseModule('example.ts', text), 4);
  assert.equal(found.map((f) => [f.name, f.line, f.lines]), [['tooLong', 2, 5], ['arrow', 7, 5], ['method', 29, 5]]);
});

test('a pure constant is a literal value or arithmetic of literals; one naming another constant, an object made by code or a function is not', () => {
  const source = parseModule(
    'example.ts',
    'export const SIZE = 32;\nexport const NAMES = [\'a\', \'b\'] as const;\nexport const LIMITS = { max: -1, on: true };\n'
      + 'export const WINDOW_MS = 5 * 60 * 1000;\nexport const TWICE = SIZE * 2;\nexport const MADE = new Set([1]);\n'
      + 'export function make() { return 1; }\nconst HIDDEN = 1;\nexport let LOOSE = 1;\n',
  );
  assert.equal(
    ['SIZE', 'NAMES', 'LIMITS', 'WINDOW_MS', 'TWICE', 'MADE', 'make', 'HIDDEN', 'LOOSE'].map((name) => exportsPureConstant(source, name)),
    [true, true, true, true, false, false, false, false, false],
  );
});

test.run();
