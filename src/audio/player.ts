/** Plays incoming voice clips. */

/**
 * Plays a base64 webm/opus clip at `volume` (0..1). Resolves true once playback has started,
 * false when the browser refused to play it.
 */
export async function playClip(audioData: string, volume: number): Promise<boolean> {
  const audio = new Audio(`data:audio/webm;base64,${audioData}`);
  audio.volume = Math.min(1, Math.max(0, volume));
  try {
    await audio.play();
    return true;
  } catch (error) {
    console.error('voice clip could not play:', error);
    return false;
  }
}
