import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { centreCamera, createCamera, followLocalPlayer, tileAtScreen, tileCentreOnScreen } from '../../../components/camera.js';
import { spawnLocalPlayer } from '../../../components/players.js';
import { createGameWorld } from '../../../components/world.js';

test('the camera centres the view on a point at whole pixels', () => {
  assert.equal(centreCamera(createCamera(), 48, 80, 800, 600), { x: -352, y: -220 });
  assert.equal(centreCamera(createCamera(), 10.6, -0.4, 390, 844), { x: -184, y: -422 });
});

test('a tile centre placed on screen is picked back as that tile, and the tile under a pixel is floored', () => {
  const camera = centreCamera(createCamera(), 100, 37, 800, 600);
  for (const [tileX, tileY] of [[0, 0], [-3, 7], [12, -9]] as const) {
    const { x, y } = tileCentreOnScreen(camera, tileX, tileY);
    assert.equal(tileAtScreen(camera, x, y), { tileX, tileY });
  }
  // Screen (0, 0) shows world (camera.x, camera.y) = (-300, -263): tile (-10, -9).
  assert.equal(tileAtScreen(camera, 0, 0), { tileX: -10, tileY: -9 });
  assert.equal(tileAtScreen(camera, 12, 7), { tileX: -9, tileY: -8 });
});

test('following the local player centres on its drawn position, or on the origin without one', () => {
  const world = createGameWorld();
  assert.equal(followLocalPlayer(createCamera(), world, 800, 600, 0), { x: -400, y: -300 });
  spawnLocalPlayer(world, { id: 'me', name: 'Me', x: 48, y: 80 });
  assert.equal(followLocalPlayer(createCamera(), world, 800, 600, 1), { x: -352, y: -220 });
});

test.run();
