/** One drawing of a character: the customise preview draws exactly what the game draws for the same look. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_APPEARANCE, HAIR_STYLES, SHIRT_STYLES, type Appearance } from '../../../components/appearance-types.js';
import { writeLook } from '../../../components/appearance.js';
import { spawnLocalPlayer } from '../../../components/players.js';
import { createGameWorld } from '../../../components/world.js';
import { drawPreview, PREVIEW_HEIGHT, PREVIEW_WIDTH } from '../../../systems/draw/character.js';
import { createDrawView, drawWorld } from '../../../systems/draw/draw-world.js';
import { recordingContext, recordingSurfaces } from '../../support/recording-canvas.js';

/** The calls of the last figure drawn (from its save() to its restore()), its placement left out. */
function lastFigure(calls: string[]): { at: string; body: string[] } {
  const start = calls.lastIndexOf('save()');
  const end = calls.indexOf('restore()', start);
  assert.ok(start >= 0 && end > start, 'a figure was drawn');
  const figure = calls.slice(start, end + 1);
  return { at: figure[1]!, body: [figure[0]!, ...figure.slice(2)] };
}

/** What the preview draws for `look`. */
function preview(look: Appearance): { cleared: string; at: string; body: string[] } {
  const { ctx, calls } = recordingContext();
  drawPreview(ctx, look);
  return { cleared: calls[0]!, ...lastFigure(calls) };
}

const game = recordingContext();
const view = createDrawView(game.ctx, 800, 600, recordingSurfaces);
const world = createGameWorld();
const me = spawnLocalPlayer(world, { id: 'me', name: 'Me', x: 48, y: 80 });

/** What the game draws for the local player wearing `look`, standing still. */
function inGame(look: Appearance): { at: string; body: string[] } {
  writeLook(world.look, me, look);
  game.calls.length = 0;
  drawWorld(world, view, 1);
  return lastFigure(game.calls);
}

test('the preview draws the game\'s figure for every hair and shirt style', () => {
  for (const hairStyle of HAIR_STYLES) {
    for (const shirtStyle of SHIRT_STYLES) {
      const look: Appearance = { skinColor: '#8D5524', hairColor: '#FFD700', hairStyle, shirtColor: '#DC143C', shirtStyle, pantsColor: '#2F4F4F', shoeColor: '#8B4513' };
      const shown = preview(look);
      assert.equal(shown.body, inGame(look).body, `${hairStyle} hair, ${shirtStyle} shirt`);
      assert.is(shown.cleared, `clearRect(0,0,${PREVIEW_WIDTH},${PREVIEW_HEIGHT})`);
      assert.is(shown.at, `translate(${PREVIEW_WIDTH / 2},${PREVIEW_HEIGHT / 2})`);
    }
  }
  assert.is(inGame(DEFAULT_APPEARANCE).at, 'translate(400,300)', 'the game draws the local player at the centre of the view');
});

test('the figure follows the look: hair colour and the formal shirt\'s tie', () => {
  const formal: Appearance = { ...DEFAULT_APPEARANCE, shirtStyle: 'formal' };
  const { body } = preview(formal);
  assert.ok(body.includes('fillStyle=rgb(139,69,19)'), 'the default hair, #8B4513');
  assert.ok(body.includes('fillStyle=#c62828'), 'the tie');
  assert.not.equal(preview({ ...formal, hairColor: '#FFD700' }).body, body);
});

test.run();
