import { useAtomValue } from 'jotai';
import { useEffect, useRef, useState } from 'react';
import { CLAIM_COLORS, relationOf, type Claim } from '../../components/claims.js';
import { SPAWN_RADIUS, TILE_SIZE } from '../../components/constants.js';
import { BIOME, biomeCodeAt, WORLD_SEED } from '../../components/terrain.js';
import { MINIMAP_RANGE_TILES } from '../../net/constants.js';
import { BIOME_COLORS } from '../../systems/draw/terrain-sprites.js';
import { gameHandleAtom, hudAtoms } from '../state/hud-atoms.js';
import { publicKeyAtom } from '../state/wallet-atoms.js';
import { minimapPlayersAtom, type MinimapPlayer } from '../state/social-atoms.js';
import { minimapOpenAtom } from '../state/ui-atoms.js';

/** Edge of the minimap in pixels. */
export const MINIMAP_SIZE = 200;
/** Edge of one terrain cell on the minimap in pixels. */
export const MINIMAP_CELL = 20;
/** Other players' dots fade over this long. */
export const DOT_FADE_MS = 5 * 60 * 1000;
/** The faintest a dot gets. */
export const DOT_MIN_OPACITY = 0.3;

const TILES_PER_PX = MINIMAP_RANGE_TILES / MINIMAP_SIZE;

/** Opacity of a dot last seen `ageMs` ago: full when fresh, 0.3 after 5 minutes and later. */
export function dotOpacity(ageMs: number): number {
  const t = Math.max(0, Math.min(1, ageMs / DOT_FADE_MS));
  return 1 - t * (1 - DOT_MIN_OPACITY);
}

/** Each 20 px cell shows the biome at its centre tile, in the world's own ground colours. */
function drawTerrain(ctx: CanvasRenderingContext2D, centreX: number, centreY: number): void {
  const tilesPerCell = MINIMAP_CELL * TILES_PER_PX;
  for (let row = 0; row < MINIMAP_SIZE / MINIMAP_CELL; row++) {
    for (let col = 0; col < MINIMAP_SIZE / MINIMAP_CELL; col++) {
      const x0 = centreX - MINIMAP_RANGE_TILES / 2 + col * tilesPerCell;
      const y0 = centreY - MINIMAP_RANGE_TILES / 2 + row * tilesPerCell;
      const spawn = x0 <= SPAWN_RADIUS && x0 + tilesPerCell > -SPAWN_RADIUS && y0 <= SPAWN_RADIUS && y0 + tilesPerCell > -SPAWN_RADIUS;
      const biome = biomeCodeAt(Math.floor(x0 + tilesPerCell / 2), Math.floor(y0 + tilesPerCell / 2), WORLD_SEED);
      ctx.fillStyle = spawn ? BIOME_COLORS[BIOME.spawn]! : BIOME_COLORS[biome]!;
      ctx.fillRect(col * MINIMAP_CELL, row * MINIMAP_CELL, MINIMAP_CELL, MINIMAP_CELL);
    }
  }
}

function drawPlayers(ctx: CanvasRenderingContext2D, centreX: number, centreY: number, players: MinimapPlayer[], now: number): void {
  for (const player of players) {
    const px = MINIMAP_SIZE / 2 + (player.x / TILE_SIZE - centreX) / TILES_PER_PX;
    const py = MINIMAP_SIZE / 2 + (player.y / TILE_SIZE - centreY) / TILES_PER_PX;
    if (px < 0 || py < 0 || px >= MINIMAP_SIZE || py >= MINIMAP_SIZE) continue;
    ctx.globalAlpha = dotOpacity(now - player.seenAt);
    ctx.fillStyle = '#e43b44';
    ctx.fillRect(Math.round(px) - 3, Math.round(py) - 3, 6, 6);
  }
  ctx.globalAlpha = 1;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(MINIMAP_SIZE / 2 - 4, MINIMAP_SIZE / 2 - 4, 8, 8);
  ctx.fillStyle = '#3a8fd9';
  ctx.fillRect(MINIMAP_SIZE / 2 - 3, MINIMAP_SIZE / 2 - 3, 6, 6);
}

/** Claims on the minimap: a frame in the colour the game view outlines them with. */
function drawClaims(ctx: CanvasRenderingContext2D, centreX: number, centreY: number, claims: readonly Claim[], playerId: string): void {
  ctx.lineWidth = 2;
  for (const claim of claims) {
    const x = MINIMAP_SIZE / 2 + (claim.x1 - centreX) / TILES_PER_PX;
    const y = MINIMAP_SIZE / 2 + (claim.y1 - centreY) / TILES_PER_PX;
    const width = (claim.x2 - claim.x1 + 1) / TILES_PER_PX;
    const height = (claim.y2 - claim.y1 + 1) / TILES_PER_PX;
    if (x + width < 0 || y + height < 0 || x > MINIMAP_SIZE || y > MINIMAP_SIZE) continue;
    ctx.strokeStyle = CLAIM_COLORS[relationOf(claim, playerId)];
    ctx.strokeRect(Math.round(x) + 1, Math.round(y) + 1, Math.max(2, Math.round(width) - 2), Math.max(2, Math.round(height) - 2));
  }
}

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

function MinimapCanvas() {
  const canvas = useRef<HTMLCanvasElement>(null);
  const tileX = useAtomValue(hudAtoms.tileX);
  const tileY = useAtomValue(hudAtoms.tileY);
  const players = useAtomValue(minimapPlayersAtom);
  const handle = useAtomValue(gameHandleAtom);
  const claimsVersion = useAtomValue(hudAtoms.claimsVersion);
  const playerId = useAtomValue(publicKeyAtom) ?? '';
  const now = useNow(10_000);
  useEffect(() => {
    const ctx = canvas.current?.getContext('2d');
    if (!ctx) return;
    drawTerrain(ctx, tileX, tileY);
    drawClaims(ctx, tileX, tileY, handle?.claims() ?? [], playerId);
    drawPlayers(ctx, tileX, tileY, players, now);
  }, [tileX, tileY, players, now, handle, claimsVersion, playerId]);
  return <canvas ref={canvas} className="minimap-canvas" width={MINIMAP_SIZE} height={MINIMAP_SIZE} data-testid="minimap-canvas" />;
}

/** The minimap (key M): 200 px square around the player, with a legend and its range. */
export function Minimap() {
  if (!useAtomValue(minimapOpenAtom)) return null;
  return (
    <section className="pixel-panel minimap" aria-label="Minimap">
      <MinimapCanvas />
      <ul className="minimap-legend">
        <li>
          <span className="legend-dot legend-dot--you" /> You
        </li>
        <li>
          <span className="legend-dot legend-dot--other" /> Other Players
        </li>
        <li>
          <span className="legend-dot legend-dot--claim" /> Claims
        </li>
      </ul>
      <p className="minimap-range">{`Range: ${MINIMAP_RANGE_TILES} blocks`}</p>
    </section>
  );
}
