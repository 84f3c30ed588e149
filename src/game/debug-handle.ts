/**
 * The page's debug handles for tests, benchmarks and debugging: the read-only `window.__tessera`
 * (./inspect.ts: `localPlayer()`, `remotePlayers()`, `tileAt(x, y)`, `voiceHeard()`,
 * `claimAt(x, y)`, `nameLabels()`) and the frame probe `window.__tesseraProbe` (./frame-probe.ts).
 */
import type { ProbeHandle } from './frame-probe.js';
import type { TesseraInspector } from './inspect.js';
import type { Unlisten } from './listen.js';

/** Installs both handles on `window`; returns their removal, which leaves handles another game installed since alone. */
export function installDebugHandles(inspector: TesseraInspector, probe: ProbeHandle): Unlisten {
  window.__tessera = inspector;
  window.__tesseraProbe = probe;
  return () => {
    if (window.__tessera === inspector) delete window.__tessera;
    if (window.__tesseraProbe === probe) delete window.__tesseraProbe;
  };
}
