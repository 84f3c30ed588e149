/**
 * A player figure, 24x32 px at scale 1, drawn from its appearance in 2 px texels: hair style,
 * shirt style, pants and shoes, a walking bob and alternating feet, a sword swing, and the
 * defeated pose (lying down, greyed, crossed-out eyes). The one drawing of a character: the
 * game draws players with it, and the customise panel's preview (drawPreview) too.
 */
import type { Appearance } from '../../components/appearance-types.js';
import { createLook, writeLook, type Look } from '../../components/appearance.js';
import { PLAYER_HEIGHT, PLAYER_WIDTH } from '../../components/constants.js';
import { shade } from './paint.js';
import type { Ctx2D } from './surface.js';

/** Everything needed to draw one figure. Colours are 0xRRGGBB; styles are indices into HAIR_STYLES / SHIRT_STYLES. */
export interface Figure {
  skin: number;
  hair: number;
  hairStyle: number;
  shirt: number;
  shirtStyle: number;
  pants: number;
  shoes: number;
  facing: number;
  /** Walk frame: 0 standing, 1 or 2 for the two alternate feet. */
  walkFrame: number;
  /** Sword swing progress 0..1, or -1 when not swinging. */
  swing: number;
  defeated: boolean;
}

/** Width in pixels of the preview canvas: the figure's box. */
export const PREVIEW_WIDTH = PLAYER_WIDTH;
/** Height in pixels of the preview canvas: the figure's box, curly hair above it and the shadow below. */
export const PREVIEW_HEIGHT = PLAYER_HEIGHT + 4;

const HAIR = { short: 0, long: 1, curly: 2, bald: 3 } as const;
const SHIRT = { casual: 0, tank: 1, hoodie: 2, formal: 3 } as const;

function box(ctx: Ctx2D, x: number, y: number, w: number, h: number, color: string): void {
  ctx.fillStyle = color;
  ctx.fillRect(x, y, w, h);
}

function drawHair(ctx: Ctx2D, f: Figure): void {
  const hair = shade(f.hair, 1);
  const dark = shade(f.hair, 0.75);
  switch (f.hairStyle) {
    case HAIR.short:
      box(ctx, 6, 0, 12, 4, hair);
      box(ctx, 6, 4, 2, 4, hair);
      box(ctx, 16, 4, 2, 2, hair);
      box(ctx, 8, 0, 6, 2, dark);
      return;
    case HAIR.long:
      box(ctx, 6, 0, 12, 4, hair);
      box(ctx, 4, 2, 4, 16, hair);
      box(ctx, 16, 2, 4, 16, hair);
      box(ctx, 4, 14, 4, 4, dark);
      box(ctx, 16, 14, 4, 4, dark);
      return;
    case HAIR.curly:
      for (let i = 0; i < 4; i++) box(ctx, 4 + i * 4, i % 2 ? -2 : 0, 4, 4, hair);
      box(ctx, 4, 2, 16, 4, hair);
      box(ctx, 4, 6, 2, 4, hair);
      box(ctx, 18, 6, 2, 4, hair);
      for (let i = 0; i < 4; i++) box(ctx, 5 + i * 4, 2, 2, 2, dark);
      return;
    case HAIR.bald:
      box(ctx, 8, 2, 4, 2, 'rgba(255,255,255,0.45)');
      return;
  }
}

function drawShirt(ctx: Ctx2D, f: Figure, skin: string): void {
  const shirt = shade(f.shirt, 1);
  const dark = shade(f.shirt, 0.7);
  const light = shade(f.shirt, 1.25);
  box(ctx, 5, 14, 14, 10, shirt);
  box(ctx, 5, 22, 14, 2, dark);
  switch (f.shirtStyle) {
    case SHIRT.casual:
      box(ctx, 2, 14, 3, 5, shirt);
      box(ctx, 19, 14, 3, 5, shirt);
      box(ctx, 2, 19, 3, 3, skin);
      box(ctx, 19, 19, 3, 3, skin);
      box(ctx, 10, 14, 4, 1, skin);
      return;
    case SHIRT.tank:
      box(ctx, 2, 14, 3, 8, skin);
      box(ctx, 19, 14, 3, 8, skin);
      box(ctx, 5, 14, 3, 2, skin);
      box(ctx, 16, 14, 3, 2, skin);
      box(ctx, 9, 14, 6, 2, skin);
      return;
    case SHIRT.hoodie:
      box(ctx, 2, 14, 3, 7, shirt);
      box(ctx, 19, 14, 3, 7, shirt);
      box(ctx, 2, 21, 3, 2, skin);
      box(ctx, 19, 21, 3, 2, skin);
      box(ctx, 5, 13, 14, 2, dark);
      box(ctx, 9, 15, 1, 4, light);
      box(ctx, 14, 15, 1, 4, light);
      box(ctx, 8, 19, 8, 3, dark);
      return;
    case SHIRT.formal:
      box(ctx, 2, 14, 3, 7, shirt);
      box(ctx, 19, 14, 3, 7, shirt);
      box(ctx, 2, 21, 3, 2, skin);
      box(ctx, 19, 21, 3, 2, skin);
      box(ctx, 9, 14, 6, 5, '#ffffff');
      box(ctx, 11, 15, 2, 7, '#c62828');
      box(ctx, 8, 14, 1, 8, dark);
      box(ctx, 15, 14, 1, 8, dark);
      return;
  }
}

function drawSword(ctx: Ctx2D, progress: number): void {
  // The blade sweeps from over the shoulder down to the front, pivoting at the hand.
  const angle = -2.2 + progress * 2.6;
  ctx.save();
  ctx.translate(20, 20);
  ctx.globalAlpha = 0.35 * (1 - progress);
  ctx.fillStyle = '#ffffff';
  ctx.beginPath();
  ctx.arc(0, 0, 22, -2.2, angle, false);
  ctx.arc(0, 0, 12, angle, -2.2, true);
  ctx.fill();
  ctx.globalAlpha = 1;
  ctx.rotate(angle);
  box(ctx, 0, -2, 4, 4, '#6d4c2f');
  box(ctx, 4, -4, 2, 8, '#d4a017');
  box(ctx, 6, -2, 16, 4, '#d9dee3');
  box(ctx, 6, -2, 16, 1, '#ffffff');
  box(ctx, 22, -1, 2, 2, '#d9dee3');
  ctx.restore();
}

/**
 * Draws `f` with the centre of its box at (cx, cy), scaled by `scale` (1 for the local player,
 * smaller for others). Integer positions keep the texels crisp.
 */
export function drawFigure(ctx: Ctx2D, f: Figure, cx: number, cy: number, scale: number): void {
  ctx.save();
  ctx.translate(Math.round(cx), Math.round(cy));
  ctx.scale(scale, scale);
  if (f.defeated) {
    ctx.rotate(Math.PI / 2);
    ctx.globalAlpha = 0.6;
  }
  box(ctx, -10, 14, 20, 4, 'rgba(0,0,0,0.25)');
  if (f.facing < 0) ctx.scale(-1, 1);
  ctx.translate(-PLAYER_WIDTH / 2, -PLAYER_HEIGHT / 2 - (f.walkFrame === 1 ? 2 : 0));
  const skin = shade(f.skin, 1);
  const shoes = shade(f.shoes, 1);
  const leftLift = f.walkFrame === 1 ? 2 : 0;
  const rightLift = f.walkFrame === 2 ? 2 : 0;
  box(ctx, 6, 24, 12, 5, shade(f.pants, 1));
  box(ctx, 11, 26, 2, 3, shade(f.pants, 0.7));
  box(ctx, 5, 29 - leftLift, 6, 3, shoes);
  box(ctx, 13, 29 - rightLift, 6, 3, shoes);
  drawShirt(ctx, f, skin);
  box(ctx, 6, 2, 12, 12, skin);
  box(ctx, 6, 12, 12, 2, shade(f.skin, 0.85));
  if (f.defeated) {
    for (const ex of [10, 15]) {
      box(ctx, ex - 1, 7, 1, 1, '#222');
      box(ctx, ex + 1, 7, 1, 1, '#222');
      box(ctx, ex, 8, 1, 1, '#222');
      box(ctx, ex - 1, 9, 1, 1, '#222');
      box(ctx, ex + 1, 9, 1, 1, '#222');
    }
  } else {
    box(ctx, 11, 7, 2, 3, '#1c1c28');
    box(ctx, 15, 7, 2, 3, '#1c1c28');
    box(ctx, 11, 7, 1, 1, '#ffffff');
    box(ctx, 15, 7, 1, 1, '#ffffff');
    box(ctx, 12, 11, 4, 1, shade(f.skin, 0.7));
  }
  drawHair(ctx, f);
  if (f.swing >= 0 && !f.defeated) drawSword(ctx, f.swing);
  ctx.restore();
}

/** Copies the look stored at `eid` (colours and styles) into `f`; returns `f`. */
export function loadLook(f: Figure, look: Look, eid: number): Figure {
  f.skin = look.skin[eid]!;
  f.hair = look.hair[eid]!;
  f.hairStyle = look.hairStyle[eid]!;
  f.shirt = look.shirt[eid]!;
  f.shirtStyle = look.shirtStyle[eid]!;
  f.pants = look.pants[eid]!;
  f.shoes = look.shoes[eid]!;
  return f;
}

/**
 * Draws `appearance` on a PREVIEW_WIDTH x PREVIEW_HEIGHT canvas as the game draws a player
 * standing still, facing right: stored into a look as the game stores it, then drawn by drawFigure.
 */
export function drawPreview(ctx: Ctx2D, appearance: Appearance): void {
  const look = createLook(1);
  writeLook(look, 0, appearance);
  const standing: Figure = { skin: 0, hair: 0, hairStyle: 0, shirt: 0, shirtStyle: 0, pants: 0, shoes: 0, facing: 1, walkFrame: 0, swing: -1, defeated: false };
  ctx.clearRect(0, 0, PREVIEW_WIDTH, PREVIEW_HEIGHT);
  drawFigure(ctx, loadLook(standing, look, 0), PREVIEW_WIDTH / 2, PREVIEW_HEIGHT / 2, 1);
}
