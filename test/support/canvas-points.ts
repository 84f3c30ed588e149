/**
 * Points on the game canvas for the browser suites and benchmarks, placed by the engine's own
 * camera (components/camera.ts): the view is centred on the page's local player
 * (`window.__tessera.localPlayer()`), 1 world pixel per canvas pixel; the canvas box may show
 * its pixels larger or smaller in CSS pixels.
 */
import type { Page } from 'playwright-core';
import { centreCamera, createCamera, tileCentreOnScreen, type Camera } from '../../components/camera.js';
import { TILE_SIZE } from '../../components/constants.js';
import { isSpawnTile, isWaterTile, WORLD_SEED } from '../../components/terrain.js';

/** The game screen's canvas. */
const GAME_CANVAS = 'canvas.game-canvas';

/** The camera `page` draws with now: centred on its local player over the canvas's pixels. */
export async function pageCamera(page: Page): Promise<Camera> {
  const [player, size] = await Promise.all([
    page.evaluate(() => window.__tessera!.localPlayer()!),
    page.locator(GAME_CANVAS).evaluate((c: HTMLCanvasElement) => ({ width: c.width, height: c.height })),
  ]);
  return centreCamera(createCamera(), player.x, player.y, size.width, size.height);
}

/**
 * The point showing world pixel (x, y), in CSS pixels from the canvas box's top-left corner
 * (for `locator.click({ position })`), with the box's own place on the page.
 */
async function worldPointInBox(page: Page, x: number, y: number): Promise<{ box: { x: number; y: number }; x: number; y: number }> {
  const canvas = page.locator(GAME_CANVAS);
  const [camera, box, pixels] = await Promise.all([
    pageCamera(page),
    canvas.boundingBox(),
    canvas.evaluate((c: HTMLCanvasElement) => ({ width: c.width, height: c.height })),
  ]);
  const scaleX = box!.width / pixels.width;
  const scaleY = box!.height / pixels.height;
  return { box: box!, x: (x - camera.x) * scaleX, y: (y - camera.y) * scaleY };
}

/** World pixel (x, y) in CSS pixels from the canvas box's top-left corner, for `locator.click({ position })`. */
export async function worldPointInCanvas(page: Page, x: number, y: number): Promise<{ x: number; y: number }> {
  const point = await worldPointInBox(page, x, y);
  return { x: point.x, y: point.y };
}

/** The centre of tile (tileX, tileY) in CSS pixels from the canvas box's top-left corner, for `locator.click({ position })`. */
export function tileInCanvas(page: Page, tileX: number, tileY: number): Promise<{ x: number; y: number }> {
  return worldPointInCanvas(page, tileX * TILE_SIZE + TILE_SIZE / 2, tileY * TILE_SIZE + TILE_SIZE / 2);
}

/** The page point (CSS px) at the centre of tile (tileX, tileY), for the mouse or the touchscreen. */
export async function tilePoint(page: Page, tileX: number, tileY: number): Promise<{ x: number; y: number }> {
  const point = await worldPointInBox(page, tileX * TILE_SIZE + TILE_SIZE / 2, tileY * TILE_SIZE + TILE_SIZE / 2);
  return { x: point.box.x + point.x, y: point.box.y + point.y };
}

/** The canvas pixel showing the centre of tile (tileX, tileY) now. */
export async function tileOnCanvas(page: Page, tileX: number, tileY: number): Promise<{ x: number; y: number }> {
  return tileCentreOnScreen(await pageCamera(page), tileX, tileY);
}

/** The first tile two or more to the right of (tileX, tileY) on the same row that can be built on: outside the spawn area and not water. */
export function landTileRightOf(tileX: number, tileY: number): number {
  for (let x = tileX + 2; ; x++) if (!isSpawnTile(x, tileY) && !isWaterTile(x, tileY, WORLD_SEED)) return x;
}

/** The first land tile two or more to the right of the page's local player, on its row. */
export async function landTileRightOfPlayer(page: Page): Promise<{ tileX: number; tileY: number }> {
  const me = await page.evaluate(() => window.__tessera!.localPlayer()!);
  const tileY = Math.floor(me.y / TILE_SIZE);
  return { tileX: landTileRightOf(Math.floor(me.x / TILE_SIZE), tileY), tileY };
}
