/** Colour palettes of the customisation panel (docs/game-rules.md §3: 8 skin, 8 hair, 12 general). */

/** Skin colours. */
export const SKIN_COLORS = ['#FFDBAC', '#FDBCB4', '#F1C27D', '#E0AC69', '#C68642', '#A0674B', '#8D5524', '#5C3836'] as const;

/** Hair colours. */
export const HAIR_COLORS = ['#8B4513', '#000000', '#4A2C17', '#D4A017', '#F4E285', '#B22222', '#808080', '#FFFFFF'] as const;

/** The general palette for shirt, pants and shoes. */
export const GENERAL_COLORS = [
  '#4169E1', '#DC143C', '#228B22', '#FFD700', '#800080', '#FF8C00',
  '#00CED1', '#FF69B4', '#654321', '#2F4F4F', '#000000', '#FFFFFF',
] as const;
