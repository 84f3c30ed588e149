import type { CSSProperties } from 'react';
import { blockColors } from './block-colors.js';

/** A small pixel cube in the colours of `blockType`. */
export function BlockIcon({ blockType }: { blockType: string }) {
  const [face, edge] = blockColors(blockType);
  const style = { '--block-face': face, '--block-edge': edge } as CSSProperties;
  return <span className={`block-icon block-icon--${blockType}`} style={style} aria-hidden="true" />;
}
