import { useEffect, useRef } from 'react';
import type { Appearance } from '../../components/appearance-types.js';
import { drawCharacter } from './draw-character.js';

/** A live, pixel-scaled picture of `appearance`. */
export function CharacterPreview({ appearance }: { appearance: Appearance }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const ctx = canvas.current?.getContext('2d');
    if (ctx) drawCharacter(ctx, appearance);
  }, [appearance]);
  return <canvas ref={canvas} className="character-preview" width={24} height={32} data-testid="character-preview" />;
}
