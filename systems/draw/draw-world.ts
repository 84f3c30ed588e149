/**
 * Draws the world once per animation frame, centred on the local player (components/camera.ts):
 * cached chunks of ground and blocks for the tiles in view, animated water and spawn overlays,
 * the build highlight and claims, then the players, positions interpolated between the last two
 * steps by `alpha`. Not a step system: it only reads the world.
 */
import { asBuffer, query } from 'bitecs';
import { SPAWN_RADIUS, SWING_MS, TILE_SIZE, WORLD_MAX_TILE, WORLD_MIN_TILE } from '../../components/constants.js';
import { createCamera, followLocalPlayer } from '../../components/camera.js';
import { CLAIM_COLORS, claimShapeProblem, rectSize, relationOf, type TileRect } from '../../components/claims.js';
import { isSpawnTile } from '../../components/terrain.js';
import { MAX_REMOTE_PLAYERS } from '../../components/network.js';
import { CHUNK_TILES } from '../../components/tiles.js';
import { interpolatedPosition } from '../../components/transform.js';
import type { GameWorld } from '../../components/world.js';
import { paintBlockSheet } from './block-sprites.js';
import { drawFigure, loadLook, type Figure } from './character.js';
import { CHUNK_PX, createChunkCache, renderedChunk, type ChunkCache } from './chunk-cache.js';
import { createLabelCache, labelSurface, refreshLabels, type LabelCache } from './label-cache.js';
import { addName, clearNames, createNameLayout, layoutNames, type NameLayout } from './name-labels.js';
import type { Ctx2D, SurfaceFactory } from './surface.js';
import { paintTerrainSheet } from './terrain-sprites.js';

/** Where and with what the world is drawn. */
export interface DrawView {
  ctx: Ctx2D;
  width: number;
  height: number;
  cache: ChunkCache;
  labels: LabelCache;
  /** This frame's name labels, laid out so none covers another. */
  names: NameLayout;
}

/** A view drawing onto `ctx`; sprite sheets and chunk surfaces come from `makeSurface`. */
export function createDrawView(ctx: Ctx2D, width: number, height: number, makeSurface: SurfaceFactory): DrawView {
  ctx.imageSmoothingEnabled = false;
  return {
    ctx,
    width,
    height,
    cache: createChunkCache(makeSurface, paintTerrainSheet(makeSurface), paintBlockSheet(makeSurface)),
    labels: createLabelCache(makeSurface),
    names: createNameLayout(MAX_REMOTE_PLAYERS + 1),
  };
}

const VOID = '#0b0e1a';
const WORLD_MIN_PX = WORLD_MIN_TILE * TILE_SIZE;
const WORLD_END_PX = (WORLD_MAX_TILE + 1) * TILE_SIZE;
const REMOTE_SCALE = 0.75;
/** Scratch for interpolated positions, so drawing allocates nothing per player. */
const at = { x: 0, y: 0 };
/** The frame's camera, placed anew each frame. */
const camera = createCamera();
const figure: Figure = { skin: 0, hair: 0, hairStyle: 0, shirt: 0, shirtStyle: 0, pants: 0, shoes: 0, facing: 1, walkFrame: 0, swing: -1, defeated: false };

function drawGround(world: GameWorld, view: DrawView, camX: number, camY: number): void {
  const { ctx, width, height, cache } = view;
  const cx0 = Math.floor(camX / CHUNK_PX);
  const cy0 = Math.floor(camY / CHUNK_PX);
  const cx1 = Math.floor((camX + width - 1) / CHUNK_PX);
  const cy1 = Math.floor((camY + height - 1) / CHUNK_PX);
  const phase = world.step >> 2;
  ctx.fillStyle = 'rgba(255,255,255,0.4)';
  for (let cy = cy0; cy <= cy1; cy++) {
    for (let cx = cx0; cx <= cx1; cx++) {
      const rc = renderedChunk(cache, world.tiles, cx, cy, world.seed);
      const ox = cx * CHUNK_PX - camX;
      const oy = cy * CHUNK_PX - camY;
      ctx.drawImage(rc.surface as CanvasImageSource, ox, oy);
      for (const i of rc.water) {
        const lx = i % CHUNK_TILES;
        const ly = (i - lx) / CHUNK_TILES;
        const wave = (phase + lx * 7 + ly * 13) % 28;
        const px = ox + lx * TILE_SIZE;
        const py = oy + ly * TILE_SIZE;
        ctx.fillRect(px + (wave & ~1), py + 10, 8, 2);
        ctx.fillRect(px + ((wave + 14) % 28 & ~1), py + 22, 6, 2);
      }
    }
  }
  ctx.fillStyle = VOID;
  ctx.fillRect(0, 0, width, WORLD_MIN_PX - camY);
  ctx.fillRect(0, WORLD_END_PX - camY, width, height);
  ctx.fillRect(0, 0, WORLD_MIN_PX - camX, height);
  ctx.fillRect(WORLD_END_PX - camX, 0, width, height);
}

/** Steps of the spawn pulse: its colours are made once, not as new strings every frame. */
const PULSE_LEVELS = 64;
const pulseColours = (make: (pulse: number) => string) => Array.from({ length: PULSE_LEVELS + 1 }, (_, i) => make(i / PULSE_LEVELS));
const GLOW_FILL = pulseColours((p) => `rgba(255,248,200,${0.08 + 0.17 * p})`);
const GLOW_EDGE = pulseColours((p) => `rgba(255,236,140,${0.5 + 0.5 * p})`);
const GLOW_CROSS = pulseColours((p) => `rgba(255,255,255,${0.4 + 0.5 * p})`);

function drawSpawnGlow(world: GameWorld, ctx: Ctx2D, camX: number, camY: number): void {
  const level = Math.round((0.5 + 0.5 * Math.sin(world.step * 0.08)) * PULSE_LEVELS);
  const x = -SPAWN_RADIUS * TILE_SIZE - camX;
  const y = -SPAWN_RADIUS * TILE_SIZE - camY;
  const size = (SPAWN_RADIUS * 2 + 1) * TILE_SIZE;
  ctx.fillStyle = GLOW_FILL[level]!;
  ctx.fillRect(x, y, size, size);
  ctx.fillStyle = GLOW_EDGE[level]!;
  ctx.fillRect(x - 2, y - 2, size + 4, 2);
  ctx.fillRect(x - 2, y + size, size + 4, 2);
  ctx.fillRect(x - 2, y, 2, size);
  ctx.fillRect(x + size, y, 2, size);
  const c = TILE_SIZE / 2;
  ctx.fillStyle = GLOW_CROSS[level]!;
  ctx.fillRect(c - 2 - camX, 6 - camY, 4, 20);
  ctx.fillRect(6 - camX, c - 2 - camY, 20, 4);
}

function drawHover(world: GameWorld, ctx: Ctx2D, camX: number, camY: number): void {
  const hover = world.input.hover;
  if (!hover) return;
  const x = hover.tileX * TILE_SIZE - camX;
  const y = hover.tileY * TILE_SIZE - camY;
  ctx.strokeStyle = isSpawnTile(hover.tileX, hover.tileY) ? 'rgba(255,80,80,0.9)' : 'rgba(255,255,255,0.85)';
  ctx.lineWidth = 2;
  ctx.strokeRect(x + 1, y + 1, TILE_SIZE - 2, TILE_SIZE - 2);
}

function strokeRect(ctx: Ctx2D, rect: TileRect, camX: number, camY: number): void {
  const x = rect.x1 * TILE_SIZE - camX;
  const y = rect.y1 * TILE_SIZE - camY;
  ctx.strokeRect(x + 1.5, y + 1.5, (rect.x2 - rect.x1 + 1) * TILE_SIZE - 3, (rect.y2 - rect.y1 + 1) * TILE_SIZE - 3);
}

/** While the LAND panel is open: every claim near the player outlined in its relation's colour, and the claim tool's rectangle. */
function drawClaims(world: GameWorld, ctx: Ctx2D, camX: number, camY: number): void {
  const { shown, list, tool } = world.claims;
  if (!shown) return;
  const me = world.ids[world.local] ?? '';
  ctx.lineWidth = 3;
  for (const claim of list) {
    ctx.strokeStyle = CLAIM_COLORS[relationOf(claim, me)];
    strokeRect(ctx, claim, camX, camY);
  }
  if (tool.draft) {
    ctx.fillStyle = claimShapeProblem(tool.draft) ? 'rgba(228,59,68,0.25)' : 'rgba(255,255,255,0.2)';
    const { width, height } = rectSize(tool.draft);
    ctx.fillRect(tool.draft.x1 * TILE_SIZE - camX, tool.draft.y1 * TILE_SIZE - camY, width * TILE_SIZE, height * TILE_SIZE);
    ctx.strokeStyle = '#ffffff';
    strokeRect(ctx, tool.draft, camX, camY);
  }
}

function loadFigure(world: GameWorld, e: number): Figure {
  const { motion, combat } = world;
  loadLook(figure, world.look, e);
  figure.facing = motion.facing[e]!;
  figure.walkFrame = motion.moving[e] ? 1 + ((world.step >> 3) & 1) : 0;
  figure.swing = combat.swinging[e] ? Math.min(1, (world.time - combat.swingStart[e]!) / SWING_MS) : -1;
  figure.defeated = world.vitals.defeated[e] === 1;
  return figure;
}

/** Adds the label of `e` to the frame's names: centred on `sx`, its bottom at `bottom`. */
function nameLabel(view: DrawView, world: GameWorld, e: number, sx: number, bottom: number, dist2: number): void {
  const surface = labelSurface(view.labels, world.names[e] || 'Player');
  addName(view.names, e, sx, bottom, surface.width, surface.height, dist2);
}

/** Draws the frame's names where {@link layoutNames} put them, the local player's on top. */
function drawNames(world: GameWorld, view: DrawView): void {
  const { names } = view;
  layoutNames(names, world.local);
  for (let k = 0; k < names.drawn; k++) {
    const i = names.order[k]!;
    const surface = labelSurface(view.labels, world.names[names.eid[i]!] || 'Player');
    view.ctx.drawImage(surface as CanvasImageSource, names.x[i]!, names.y[i]!);
  }
}

function healthBar(ctx: Ctx2D, ratio: number, x: number, y: number): void {
  const r = Math.max(0, Math.min(1, ratio));
  ctx.fillStyle = 'rgba(0,0,0,0.7)';
  ctx.fillRect(x - 13, y, 26, 5);
  ctx.fillStyle = r > 0.5 ? '#43d35c' : r > 0.25 ? '#f2c230' : '#e5483b';
  ctx.fillRect(x - 12, y + 1, Math.round(24 * r), 3);
}

function drawPlayers(world: GameWorld, view: DrawView, camX: number, camY: number, alpha: number): void {
  const { ctx, width, height } = view;
  const { health, maxHealth } = world.vitals;
  const remotes = query(world, [world.Remote], asBuffer) as Uint32Array;
  refreshLabels(view.labels);
  clearNames(view.names);
  const me = world.local;
  let mx = 0;
  let my = 0;
  if (me) {
    interpolatedPosition(world.transform, me, alpha, at);
    mx = at.x - camX;
    my = at.y - camY;
  }
  for (let i = 0; i < remotes.length; i++) {
    const e = remotes[i]!;
    interpolatedPosition(world.transform, e, alpha, at);
    const sx = at.x - camX;
    const sy = at.y - camY;
    if (sx < -40 || sy < -40 || sx > width + 40 || sy > height + 40) continue;
    drawFigure(ctx, loadFigure(world, e), sx, sy, REMOTE_SCALE);
    healthBar(ctx, health[e]! / maxHealth[e]!, Math.round(sx), Math.round(sy) - 32);
    nameLabel(view, world, e, sx, sy - 33, (sx - mx) * (sx - mx) + (sy - my) * (sy - my));
  }
  if (me) {
    drawFigure(ctx, loadFigure(world, me), mx, my, 1);
    nameLabel(view, world, me, mx, my - 22, 0);
  }
  drawNames(world, view);
}

/** Draws one frame; `alpha` (0..1) is how far real time is past the last step. */
export function drawWorld(world: GameWorld, view: DrawView, alpha: number): void {
  const { x: camX, y: camY } = followLocalPlayer(camera, world, view.width, view.height, alpha);
  view.ctx.fillStyle = VOID;
  view.ctx.fillRect(0, 0, view.width, view.height);
  drawGround(world, view, camX, camY);
  drawSpawnGlow(world, view.ctx, camX, camY);
  drawHover(world, view.ctx, camX, camY);
  drawClaims(world, view.ctx, camX, camY);
  drawPlayers(world, view, camX, camY, alpha);
}
