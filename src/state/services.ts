/**
 * Actions the chat and voice panels ask of the multiplayer code. The multiplayer code
 * registers an implementation while the game runs; until then the panels' actions do nothing.
 */

/** Who is chatting or talking: the wallet address (or 'unknown') and the name (or 'Anonymous'). */
export interface Sender {
  playerId: string;
  playerName: string;
}

/** What the panels can ask for. Rejections are reported by the panels (docs/game-rules.md §8). */
export interface GameServices {
  /** Inserts a chat message; `text` is already trimmed, non-empty and at most 200 characters. */
  sendChat(text: string, sender: Sender): Promise<void>;
  /** Opens the microphone and starts recording; rejects when the microphone is unavailable. */
  startTalking(sender: Sender): Promise<void>;
  /** Stops recording and sends the clip; rejects when the clip could not be sent. */
  stopTalking(sender: Sender): Promise<void>;
}

let current: GameServices | null = null;

/** Registers the services; returns a function that unregisters them again. */
export function registerGameServices(services: GameServices): () => void {
  current = services;
  return () => {
    if (current === services) current = null;
  };
}

/** The registered services, or null when none are registered. */
export function getGameServices(): GameServices | null {
  return current;
}
