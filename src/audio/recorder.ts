/** Hold-to-talk recording: webm/opus from the microphone, handed over as base64. */

/** A recording in progress. */
export interface Recording {
  /** Stops the recording and resolves to the clip as base64 (empty when nothing was recorded). */
  stop(): Promise<string>;
}

const MIME_TYPE = 'audio/webm;codecs=opus';

/** Opens the microphone and starts recording. Rejects when the microphone cannot be used. */
export async function startRecording(): Promise<Recording> {
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  const recorder = new MediaRecorder(stream, MediaRecorder.isTypeSupported(MIME_TYPE) ? { mimeType: MIME_TYPE } : undefined);
  const chunks: Blob[] = [];
  recorder.addEventListener('dataavailable', (event) => {
    if (event.data.size > 0) chunks.push(event.data);
  });
  recorder.start();
  return {
    stop: () =>
      new Promise<string>((resolve, reject) => {
        recorder.addEventListener(
          'stop',
          () => {
            for (const track of stream.getTracks()) track.stop();
            new Blob(chunks, { type: recorder.mimeType }).arrayBuffer().then((buffer) => resolve(toBase64(buffer)), reject);
          },
          { once: true },
        );
        if (recorder.state === 'inactive') recorder.dispatchEvent(new Event('stop'));
        else recorder.stop();
      }),
  };
}

/** Base64 of a buffer, built in slices so long clips do not overflow the argument list. */
function toBase64(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
