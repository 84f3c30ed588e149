import type { Appearance } from '../../components/appearance-types.js';

type Ctx = CanvasRenderingContext2D;

function rect(ctx: Ctx, color: string, x: number, y: number, w: number, h: number): void {
  ctx.fillStyle = color;
  ctx.fillRect(x, y, w, h);
}

function drawHair(ctx: Ctx, look: Appearance): void {
  const c = look.hairColor;
  switch (look.hairStyle) {
    case 'short':
      rect(ctx, c, 6, 1, 12, 3);
      rect(ctx, c, 6, 4, 2, 2);
      rect(ctx, c, 16, 4, 2, 2);
      break;
    case 'long':
      rect(ctx, c, 6, 1, 12, 3);
      rect(ctx, c, 5, 3, 3, 12);
      rect(ctx, c, 16, 3, 3, 12);
      break;
    case 'curly':
      for (let x = 5; x < 19; x += 3) rect(ctx, c, x, x % 2 === 0 ? 0 : 1, 3, 3);
      rect(ctx, c, 5, 3, 2, 4);
      rect(ctx, c, 17, 3, 2, 4);
      break;
    case 'bald':
      break;
  }
}

function drawShirt(ctx: Ctx, look: Appearance): void {
  const c = look.shirtColor;
  rect(ctx, c, 6, 13, 12, 9);
  const sleeves = look.shirtStyle === 'tank' ? look.skinColor : c;
  rect(ctx, sleeves, 3, 13, 3, 7);
  rect(ctx, sleeves, 18, 13, 3, 7);
  rect(ctx, look.skinColor, 3, 20, 3, 2);
  rect(ctx, look.skinColor, 18, 20, 3, 2);
  if (look.shirtStyle === 'tank') rect(ctx, look.skinColor, 9, 13, 6, 2);
  if (look.shirtStyle === 'hoodie') {
    rect(ctx, 'rgba(0,0,0,0.25)', 6, 12, 12, 2);
    rect(ctx, 'rgba(0,0,0,0.25)', 9, 18, 6, 3);
    rect(ctx, '#f2f2e8', 10, 14, 1, 3);
    rect(ctx, '#f2f2e8', 13, 14, 1, 3);
  }
  if (look.shirtStyle === 'formal') {
    rect(ctx, '#ffffff', 10, 13, 4, 3);
    rect(ctx, '#b4202a', 11, 14, 2, 6);
  }
}

/** Draws a character in its 24x32 box at (0, 0) of `ctx`, one unit per pixel. */
export function drawCharacter(ctx: Ctx, look: Appearance): void {
  ctx.clearRect(0, 0, 24, 32);
  rect(ctx, look.skinColor, 7, 2, 10, 10);
  drawHair(ctx, look);
  rect(ctx, '#10121c', 9, 7, 2, 2);
  rect(ctx, '#10121c', 13, 7, 2, 2);
  rect(ctx, 'rgba(0,0,0,0.2)', 10, 10, 4, 1);
  drawShirt(ctx, look);
  rect(ctx, look.pantsColor, 6, 22, 12, 4);
  rect(ctx, look.pantsColor, 6, 26, 5, 3);
  rect(ctx, look.pantsColor, 13, 26, 5, 3);
  rect(ctx, look.shoeColor, 5, 29, 6, 3);
  rect(ctx, look.shoeColor, 13, 29, 6, 3);
}
