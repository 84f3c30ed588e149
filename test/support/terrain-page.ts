/**
 * A page script for browser tests of terrain drawing: paints an area of the world with the game's
 * own chunk renderer (ground, decorations, soft biome borders) onto a canvas and hands its
 * pixels back. Bundled by the test and run in a blank page, outside the game.
 */
import { paintBlockSheet } from '../../systems/draw/block-sprites.js';
import { CHUNK_PX, createChunkCache, renderedChunk } from '../../systems/draw/chunk-cache.js';
import { paintTerrainSheet } from '../../systems/draw/terrain-sprites.js';
import { createTileStore } from '../../components/tiles.js';
import { TILE_SIZE } from '../../protocol/geometry.js';

declare global {
  interface Window {
    /** Paints tiles (tx0, ty0) to (tx0 + w - 1, ty0 + h - 1) of world `seed`; its RGBA pixels, row-major. */
    paintTerrain(tx0: number, ty0: number, w: number, h: number, seed: number): number[];
  }
}

const makeSurface = (width: number, height: number) => {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  return canvas;
};

window.paintTerrain = (tx0, ty0, w, h, seed) => {
  const cache = createChunkCache(makeSurface, paintTerrainSheet(makeSurface), paintBlockSheet(makeSurface));
  const store = createTileStore();
  const canvas = makeSurface(w * TILE_SIZE, h * TILE_SIZE);
  canvas.id = 'terrain';
  document.body.append(canvas);
  const ctx = canvas.getContext('2d')!;
  ctx.imageSmoothingEnabled = false;
  const x0 = tx0 * TILE_SIZE;
  const y0 = ty0 * TILE_SIZE;
  for (let cy = Math.floor(y0 / CHUNK_PX); cy * CHUNK_PX < y0 + h * TILE_SIZE; cy++) {
    for (let cx = Math.floor(x0 / CHUNK_PX); cx * CHUNK_PX < x0 + w * TILE_SIZE; cx++) {
      ctx.drawImage(renderedChunk(cache, store, cx, cy, seed).surface as HTMLCanvasElement, cx * CHUNK_PX - x0, cy * CHUNK_PX - y0);
    }
  }
  return Array.from(ctx.getImageData(0, 0, w * TILE_SIZE, h * TILE_SIZE).data);
};
