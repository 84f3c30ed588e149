import { useEffect, useRef } from 'react';
import type { Appearance } from '../../components/appearance-types.js';
import { drawPreview, PREVIEW_HEIGHT, PREVIEW_WIDTH } from '../../systems/draw/character.js';

/** A live, pixel-scaled picture of `appearance`, drawn as the game draws the player. */
export function CharacterPreview({ appearance }: { appearance: Appearance }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const ctx = canvas.current?.getContext('2d');
    if (ctx) drawPreview(ctx, appearance);
  }, [appearance]);
  return <canvas ref={canvas} className="character-preview" width={PREVIEW_WIDTH} height={PREVIEW_HEIGHT} data-testid="character-preview" />;
}
