/**
 * The path load tools outside the repository import `startHeadlessPlayer` from. The player
 * itself lives with the other fixtures in `test/support/headless-player.ts`; this file only keeps
 * the published path working.
 */
export { startHeadlessPlayer, type HeadlessOptions, type HeadlessPlayer, type HeadlessPose } from '../support/headless-player.js';
