import { createStore } from 'jotai';

/**
 * The one Jotai store of the app, created outside React so that the engine, the wallet and
 * the network code can write to it without a component in between.
 */
export const store = createStore();

/** The type of {@link store}. */
export type Store = typeof store;
