// Builds the browser client and the embedded server into dist/.
// With SUPABASE_URL and SUPABASE_ANON_KEY set, dist/config.json points the client at a hosted
// Supabase project instead of the embedded server.
import { build } from 'esbuild';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';

const production = process.env.NODE_ENV === 'production';

await rm('dist', { recursive: true, force: true });
await mkdir('dist/assets', { recursive: true });

await Promise.all([
  build({
    entryPoints: ['src/main.tsx'],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    outfile: 'dist/assets/app.js',
    sourcemap: true,
    minify: production,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development') },
    logLevel: 'warning',
  }),
  build({
    entryPoints: ['server/main.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: 'dist/server.mjs',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  }),
  cp('index.html', 'dist/index.html'),
  cp('src/styles.css', 'dist/assets/styles.css'),
  cp('node_modules/@fontsource/press-start-2p/files', 'dist/assets/fonts', { recursive: true }),
]);

if (process.env.SUPABASE_URL && process.env.SUPABASE_ANON_KEY) {
  await writeFile(
    'dist/config.json',
    JSON.stringify({ supabaseUrl: process.env.SUPABASE_URL, supabaseAnonKey: process.env.SUPABASE_ANON_KEY }),
  );
}
