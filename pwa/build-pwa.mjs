// Writes what makes the game installable and usable offline into the public folder: the web
// app manifest, the icons, the offline screen and the service worker (pwa/service-worker.js)
// with this build's precache list. Called by build.mjs once the client is built.
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { iconPng } from './icons.mjs';

/** Icon sizes in pixels; 192 and 512 are what installability asks for. */
const ICON_SIZES = [192, 512];
/** The game's night and ink colours (src/styles.css). */
const THEME = '#10121c';

/** The manifest: name, icons, standalone display and the theme colours. */
function manifest() {
  return {
    name: 'Tessera',
    short_name: 'Tessera',
    description: 'A multiplayer pixel world to build in together.',
    id: '/',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    orientation: 'any',
    background_color: THEME,
    theme_color: THEME,
    icons: ICON_SIZES.flatMap((size) => [
      { src: `/icons/icon-${size}.png`, sizes: `${size}x${size}`, type: 'image/png', purpose: 'any' },
      { src: `/icons/icon-${size}.png`, sizes: `${size}x${size}`, type: 'image/png', purpose: 'maskable' },
    ]),
  };
}

/**
 * Writes the files into `publicDir`. `assets` are the public paths of the content-hashed files
 * (under /assets/) to precache, `font` the pixel font's, `backend` a hosted build's Supabase URL
 * (or undefined); returns the public paths written, for compression and the build report.
 */
export async function writePwa(publicDir, assets, font, backend) {
  await mkdir(`${publicDir}/icons`, { recursive: true });
  const icons = ICON_SIZES.map((size) => `/icons/icon-${size}.png`);
  await Promise.all(ICON_SIZES.map((size, i) => writeFile(`${publicDir}${icons[i]}`, iconPng(size))));
  await writeFile(`${publicDir}/manifest.webmanifest`, JSON.stringify(manifest(), null, 2));
  await writeFile(`${publicDir}/offline.html`, await readFile('pwa/offline.html', 'utf8'));
  await writeFile(`${publicDir}/offline.css`, (await readFile('pwa/offline.css', 'utf8')).replace('__FONT__', font));
  await writeFile(`${publicDir}/offline.js`, await readFile('pwa/offline.js', 'utf8'));
  const shell = ['/offline.html', '/offline.css', '/offline.js', '/manifest.webmanifest', ...icons];
  const precache = [...shell, ...assets];
  const page = await readFile(`${publicDir}/index.html`);
  const build = createHash('sha256').update(page).update(precache.join('\n')).digest('hex').slice(0, 12);
  const worker = (await readFile('pwa/service-worker.js', 'utf8'))
    .replace('__BUILD__', build)
    .replace('__PRECACHE__', JSON.stringify(precache))
    .replace('__BACKEND__', JSON.stringify(backend ? new URL(backend).origin : null));
  await writeFile(`${publicDir}/sw.js`, worker);
  return ['/manifest.webmanifest', '/offline.html', '/offline.css', '/offline.js', '/sw.js', ...icons];
}
