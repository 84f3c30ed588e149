/** Icon colours of the block types in the HUD: a face colour and a darker edge. */
export const BLOCK_COLORS: Readonly<Record<string, readonly [face: string, edge: string]>> = Object.freeze({
  stone: ['#8a8a96', '#5c5c66'],
  wood: ['#a86b3c', '#6e4424'],
  brick: ['#b4473a', '#7a2b22'],
  dirt: ['#8b5a2b', '#5e3b1a'],
  gold: ['#f7c948', '#b8861b'],
  iron: ['#d8d8e0', '#9a9aa6'],
  diamond: ['#5ee6e6', '#2a9d9d'],
  emerald: ['#3ccf6e', '#1f8a45'],
  coal: ['#3a3a42', '#1c1c22'],
  obsidian: ['#3b2656', '#1e1030'],
  glass: ['#cfefff', '#7fb8d8'],
  sand: ['#e8d58f', '#bfa65a'],
  cobblestone: ['#777781', '#4a4a52'],
  marble: ['#f2efe8', '#bdb8ad'],
  copper: ['#d9804a', '#9a522a'],
  redstone: ['#d92b2b', '#8a1515'],
});

/** The colours of `blockType`; unknown types look like dirt (docs/game-rules.md §3). */
export function blockColors(blockType: string): readonly [string, string] {
  return BLOCK_COLORS[blockType] ?? BLOCK_COLORS.dirt!;
}
