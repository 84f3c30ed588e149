import type { IncomingMessage } from 'node:http';

/** The `Prefer` header preferences this server honours. */
export interface Preferences {
  representation: boolean;
  countExact: boolean;
  resolution?: 'merge-duplicates' | 'ignore-duplicates';
}

/** Reads every `Prefer` header (values are comma-joined by the client). */
export function parsePrefer(req: IncomingMessage): Preferences {
  const raw = req.headers.prefer;
  const items = (Array.isArray(raw) ? raw.join(',') : raw ?? '').split(',').map((s) => s.trim());
  const resolution = items.find((i) => i.startsWith('resolution='))?.slice('resolution='.length);
  return {
    representation: items.includes('return=representation'),
    countExact: items.includes('count=exact'),
    resolution: resolution === 'merge-duplicates' || resolution === 'ignore-duplicates' ? resolution : undefined,
  };
}

/** True when the client asked for a single JSON object (`.single()`). */
export function wantsSingleObject(req: IncomingMessage): boolean {
  return (req.headers.accept ?? '').includes('application/vnd.pgrst.object+json');
}
