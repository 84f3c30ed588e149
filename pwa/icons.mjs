// The app icon, drawn as 16x16 pixel art in the game's palette and written as PNG files scaled
// up without smoothing: four biome tiles around the gold spawn plate, on the night-ink frame.
import { deflateSync } from 'node:zlib';

/** One character per pixel; see PALETTE. */
const ART = [
  'kkkkkkkkkkkkkkkk',
  'kggggggkbbbbbbbk',
  'kgGgtggkbbBbbbbk',
  'kggtttgkbBbBbbbk',
  'kgggwggkbbbbbBbk',
  'kGggwGgkbbbbBbBk',
  'kgggggYYYYbbbbbk',
  'kkkkkkYyyakkkkkk',
  'ksssssYyyarrRrrk',
  'ksSsssaaaarrrrrk',
  'ksssssskrrrrRrrk',
  'ksssSsskrRrrrrrk',
  'ksssssskrrrRrrrk',
  'kSssssskrrrrrRrk',
  'ksssssSkrRrrrrrk',
  'kkkkkkkkkkkkkkkk',
];

/** Colours of the art's characters: the game's biome grounds and spawn plate. */
const PALETTE = {
  k: [0x0b, 0x0c, 0x14],
  g: [0x5d, 0xae, 0x3e], G: [0x72, 0xc1, 0x52], t: [0x2d, 0x6e, 0x2a], w: [0x6b, 0x44, 0x23],
  b: [0x2f, 0x6f, 0xbf], B: [0xd8, 0xec, 0xf6],
  s: [0xe6, 0xcf, 0x8b], S: [0xd6, 0xbd, 0x76],
  r: [0x8a, 0x8a, 0x8a], R: [0xa0, 0xa0, 0xa0],
  y: [0xe8, 0xb9, 0x23], Y: [0xfb, 0xe3, 0x8a], a: [0xb8, 0x86, 0x0b],
};

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** The icon as a PNG of `size` x `size` pixels (a multiple of 16). */
export function iconPng(size) {
  const scale = size / 16;
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) {
      const rgb = PALETTE[ART[Math.floor(y / scale)][Math.floor(x / scale)]] ?? PALETTE.k;
      row.set(rgb, 1 + x * 3);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
