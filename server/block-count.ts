import type { Database } from './db/index.js';

/** Blocks in the world are counted again no sooner than this many times the last count took (at least 1 s apart). */
const BLOCK_COUNT_SPACING = 100;

/**
 * A reader of the number of blocks in the world for `/metrics`. A count runs at most one at a
 * time and again only after {@link BLOCK_COUNT_SPACING} times the last one took (at least 1 s);
 * until then, and when a count fails, the last count is answered.
 */
export function spacedBlockCount(db: Pick<Database, 'query'>): () => Promise<number> {
  let blocks = { count: 0, at: -Infinity, spacing: 0, running: null as Promise<number> | null };
  return async () => {
    if (blocks.running || performance.now() - blocks.at < blocks.spacing) return blocks.running ?? blocks.count;
    const started = performance.now();
    blocks.running = db.query<{ n: number }>('select count(*)::int as n from public.game_blocks').then(
      ({ rows }) => rows[0]!.n,
      () => blocks.count,
    );
    const count = await blocks.running;
    const took = performance.now() - started;
    blocks = { count, at: performance.now(), spacing: Math.max(1000, took * BLOCK_COUNT_SPACING), running: null };
    return count;
  };
}
