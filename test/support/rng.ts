/** Seeded choices for the fuzz suites: the same seed sends the same requests and frames. */
import { createRandom } from '../../components/prng.js';

/** Uniform numbers, whole numbers below `n` and picks from a list, drawn from the engine's seeded PRNG. */
export function seededRng(seed: number) {
  const next = createRandom(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T,>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}

/** What {@link seededRng} returns. */
export type Rng = ReturnType<typeof seededRng>;
