// Builds the browser client into dist/public/ (the only folder the server makes public) and the
// embedded server into dist/server.mjs, outside it.
//
// `npm run build` (the default) is the production build: minified, content-hashed file names,
// code split (the game screen loads when a player enters the world), each text file
// precompressed as .br and .gz, no source maps. NODE_ENV=development (`npm run build:dev`)
// builds unminified with source maps, for debugging.
//
// With SUPABASE_URL and SUPABASE_ANON_KEY set, dist/public/config.json points the client at a
// hosted Supabase project instead of the embedded server.
//
// `node build.mjs --if-stale` (what `npm start` runs) skips the build when dist/ was built from
// the same settings after every source file last changed, so a restart serves within a second.
import { build } from 'esbuild';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { writePwa } from './pwa/build-pwa.mjs';

const development = process.env.NODE_ENV === 'development';
const PUBLIC = 'dist/public';
const ASSETS = `${PUBLIC}/assets`;
/** Files the server may send precompressed; fonts and images are compressed already. */
const COMPRESSIBLE = /\.(js|css|html|json|svg)$/;

/** Where a finished build records the settings it was made with. */
const STAMP = 'dist/.build-stamp';
const SOURCES = ['src', 'protocol', 'components', 'systems', 'net', 'server', 'pwa', 'index.html', 'build.mjs', 'package-lock.json'];
const settings = JSON.stringify([development, process.env.SUPABASE_URL ?? '', process.env.SUPABASE_ANON_KEY ?? '']);

/** The newest modification time under `path` (a file or a folder), in ms. */
async function newest(path) {
  const info = await stat(path).catch(() => null);
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  const entries = await readdir(path);
  const times = await Promise.all(entries.map((entry) => newest(`${path}/${entry}`)));
  return Math.max(info.mtimeMs, ...times);
}

if (process.argv.includes('--if-stale')) {
  const stamp = await stat(STAMP).catch(() => null);
  const same = stamp && (await readFile(STAMP, 'utf8')) === settings;
  if (same && stamp.mtimeMs > Math.max(...(await Promise.all(SOURCES.map(newest))))) {
    console.log('dist/ is up to date');
    process.exit(0);
  }
}

await rm('dist', { recursive: true, force: true });
await mkdir(ASSETS, { recursive: true });

const [client] = await Promise.all([
  build({
    entryPoints: { app: 'src/main.tsx', styles: 'src/styles.css' },
    bundle: true,
    splitting: true,
    format: 'esm',
    target: 'es2022',
    outdir: ASSETS,
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    loader: { '.woff2': 'file' },
    sourcemap: development,
    minify: !development,
    metafile: true,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': JSON.stringify(development ? 'development' : 'production') },
    logLevel: 'warning',
  }),
  build({
    entryPoints: { server: 'server/main.ts', admin: 'server/admin.ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    packages: 'external',
    sourcemap: development,
    logLevel: 'warning',
  }),
]);

const outputs = client.metafile.outputs;
const entryOf = (name) => Object.keys(outputs).find((file) => outputs[file].entryPoint === name);
const appFile = entryOf('src/main.tsx');
const cssFile = entryOf('src/styles.css');
const publicPath = (file) => file.slice(PUBLIC.length);

/** The app's entry and every chunk it imports statically: what the landing screen loads. */
function staticClosure(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const dependency of outputs[file].imports) {
    if (dependency.kind === 'import-statement') staticClosure(dependency.path, seen);
  }
  return seen;
}
const landingScripts = [...staticClosure(appFile)];
const fontFiles = Object.keys(outputs).filter((file) => file.endsWith('.woff2'));

const template = await readFile('index.html', 'utf8');
const preloads = [
  ...fontFiles.map((file) => `<link rel="preload" href="${publicPath(file)}" as="font" type="font/woff2" crossorigin />`),
  ...landingScripts.filter((file) => file !== appFile).map((file) => `<link rel="modulepreload" href="${publicPath(file)}" />`),
];
const page = template
  .replace('/assets/styles.css', publicPath(cssFile))
  .replace('/assets/app.js', publicPath(appFile))
  .replace('</head>', `${preloads.map((line) => `  ${line}\n`).join('')}  </head>`);
await writeFile(`${PUBLIC}/index.html`, page);
// The service worker keeps what the landing loads from the start; the rest once it is used.
const landingAssets = [cssFile, ...fontFiles, ...landingScripts].map(publicPath);
const pwaFiles = (await writePwa(PUBLIC, landingAssets, publicPath(fontFiles[0]), process.env.SUPABASE_URL)).map((file) => `${PUBLIC}${file}`);

if (process.env.SUPABASE_URL && process.env.SUPABASE_ANON_KEY) {
  await writeFile(
    `${PUBLIC}/config.json`,
    JSON.stringify({ supabaseUrl: process.env.SUPABASE_URL, supabaseAnonKey: process.env.SUPABASE_ANON_KEY }),
  );
}

/** Writes `file`.br and `file`.gz next to it; returns the three sizes. */
async function compress(file) {
  const raw = await readFile(file);
  if (!COMPRESSIBLE.test(file)) return { raw: raw.length, gzip: raw.length, brotli: raw.length };
  const gzip = gzipSync(raw, { level: 9 });
  const brotli = brotliCompressSync(raw, {
    params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length },
  });
  await Promise.all([writeFile(`${file}.gz`, gzip), writeFile(`${file}.br`, brotli)]);
  return { raw: raw.length, gzip: gzip.length, brotli: brotli.length };
}

const publicFiles = [`${PUBLIC}/index.html`, ...Object.keys(outputs).filter((file) => !file.endsWith('.map')), ...pwaFiles];
if (process.env.SUPABASE_URL && process.env.SUPABASE_ANON_KEY) publicFiles.push(`${PUBLIC}/config.json`);
const sizes = new Map();
for (const file of publicFiles) sizes.set(file, await compress(file));

const landing = [`${PUBLIC}/index.html`, cssFile, ...fontFiles, ...landingScripts];
const total = (files, key) => files.reduce((sum, file) => sum + sizes.get(file)[key], 0);
const pad = (value, width) => String(value).padStart(width);
console.log(`${development ? 'development' : 'production'} build in ${PUBLIC}/ (bytes: raw, gzip, brotli; * = landing's first load)`);
for (const [file, size] of [...sizes].sort((a, b) => b[1].raw - a[1].raw)) {
  console.log(`${landing.includes(file) ? '*' : ' '} ${publicPath(file).padEnd(56)}${pad(size.raw, 10)}${pad(size.gzip, 10)}${pad(size.brotli, 10)}`);
}
console.log(
  `landing first load: ${landing.length} files, ${total(landing, 'raw')} raw, ${total(landing, 'gzip')} gzip, ${total(landing, 'brotli')} brotli`,
);
console.log(`server: dist/server.mjs ${(await stat('dist/server.mjs')).size} bytes (not public)`);
await writeFile(STAMP, settings);
