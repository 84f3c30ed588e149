/** Hair styles a character can have (docs/game-rules.md §3). */
export const HAIR_STYLES = ['short', 'long', 'curly', 'bald'] as const;
/** Shirt styles a character can have (docs/game-rules.md §3). */
export const SHIRT_STYLES = ['casual', 'tank', 'hoodie', 'formal'] as const;

/** One of the hair styles a player may pick. */
export type HairStyle = (typeof HAIR_STYLES)[number];
/** One of the shirt styles a player may pick. */
export type ShirtStyle = (typeof SHIRT_STYLES)[number];

/** A character's look, as stored in localStorage and in game_players.appearance. */
export interface Appearance {
  skinColor: string;
  hairColor: string;
  hairStyle: HairStyle;
  shirtColor: string;
  shirtStyle: ShirtStyle;
  pantsColor: string;
  shoeColor: string;
}

/** The default appearance of docs/game-rules.md §3. */
export const DEFAULT_APPEARANCE: Readonly<Appearance> = Object.freeze({
  skinColor: '#FFDBAC',
  hairColor: '#8B4513',
  hairStyle: 'short',
  shirtColor: '#4169E1',
  shirtStyle: 'casual',
  pantsColor: '#654321',
  shoeColor: '#000000',
});
