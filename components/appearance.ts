/** Character appearance as typed arrays: colours packed as 0xRRGGBB, styles as indices. */
import { HAIR_STYLES, SHIRT_STYLES, type Appearance } from './appearance-types.js';

/** The seven appearance fields of docs/game-rules.md §3, per eid. */
export interface Look {
  skin: Uint32Array;
  hair: Uint32Array;
  hairStyle: Uint8Array;
  shirt: Uint32Array;
  shirtStyle: Uint8Array;
  pants: Uint32Array;
  shoes: Uint32Array;
}

/** Look arrays for `size` eids. */
export function createLook(size: number): Look {
  return {
    skin: new Uint32Array(size),
    hair: new Uint32Array(size),
    hairStyle: new Uint8Array(size),
    shirt: new Uint32Array(size),
    shirtStyle: new Uint8Array(size),
    pants: new Uint32Array(size),
    shoes: new Uint32Array(size),
  };
}

/** '#FFDBAC' or '#fdb' -> 0xffdbac; anything unparsable -> 0 (black). */
export function parseColor(color: string): number {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim())?.[1];
  if (!hex) return 0;
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex;
  return parseInt(full, 16);
}

/** 0xffdbac -> '#FFDBAC'. */
export function formatColor(rgb: number): string {
  return '#' + rgb.toString(16).padStart(6, '0').toUpperCase();
}

/** Writes `appearance` into the arrays at `eid`; unknown styles fall back to the first one. */
export function writeLook(look: Look, eid: number, appearance: Appearance): void {
  look.skin[eid] = parseColor(appearance.skinColor);
  look.hair[eid] = parseColor(appearance.hairColor);
  look.hairStyle[eid] = Math.max(0, HAIR_STYLES.indexOf(appearance.hairStyle));
  look.shirt[eid] = parseColor(appearance.shirtColor);
  look.shirtStyle[eid] = Math.max(0, SHIRT_STYLES.indexOf(appearance.shirtStyle));
  look.pants[eid] = parseColor(appearance.pantsColor);
  look.shoes[eid] = parseColor(appearance.shoeColor);
}

/** Reads the appearance stored at `eid`. */
export function readLook(look: Look, eid: number): Appearance {
  return {
    skinColor: formatColor(look.skin[eid]!),
    hairColor: formatColor(look.hair[eid]!),
    hairStyle: HAIR_STYLES[look.hairStyle[eid]!] ?? 'short',
    shirtColor: formatColor(look.shirt[eid]!),
    shirtStyle: SHIRT_STYLES[look.shirtStyle[eid]!] ?? 'casual',
    pantsColor: formatColor(look.pants[eid]!),
    shoeColor: formatColor(look.shoes[eid]!),
  };
}
