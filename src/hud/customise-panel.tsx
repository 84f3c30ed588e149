import { useAtom, useAtomValue } from 'jotai';
import { useState } from 'react';
import { DEFAULT_APPEARANCE, HAIR_STYLES, SHIRT_STYLES, type Appearance } from '../../components/appearance-types.js';
import { customiseOpenAtom } from '../state/ui-atoms.js';
import { appearanceAtom } from '../state/wallet-atoms.js';
import { saveAppearance } from '../wallet/session.js';
import { CharacterPreview } from './character-preview.js';
import { ColorPicker } from './color-picker.js';
import { GamePanel } from './game-panel.js';
import { GENERAL_COLORS, HAIR_COLORS, SKIN_COLORS } from './palettes.js';
import { StylePicker } from './style-picker.js';
import { useGameCommand } from './use-game-command.js';

function CustomiseForm({ onClose }: { onClose(): void }) {
  const [draft, setDraft] = useState<Appearance>(useAtomValue(appearanceAtom));
  const push = useGameCommand();
  const edit = <K extends keyof Appearance>(key: K) => (value: Appearance[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const save = () => {
    push({ kind: 'setAppearance', appearance: draft });
    saveAppearance(draft);
    onClose();
  };
  return (
    <div className="customise-body">
      <div className="customise-preview">
        <CharacterPreview appearance={draft} />
        <p className="panel-hint">LIVE PREVIEW</p>
      </div>
      <div className="customise-pickers">
        <ColorPicker label="SKIN" colors={SKIN_COLORS} value={draft.skinColor} onChange={edit('skinColor')} />
        <ColorPicker label="HAIR" colors={HAIR_COLORS} value={draft.hairColor} onChange={edit('hairColor')} />
        <StylePicker label="HAIR STYLE" styles={HAIR_STYLES} value={draft.hairStyle} onChange={edit('hairStyle')} />
        <ColorPicker label="SHIRT" colors={GENERAL_COLORS} value={draft.shirtColor} onChange={edit('shirtColor')} />
        <StylePicker label="SHIRT STYLE" styles={SHIRT_STYLES} value={draft.shirtStyle} onChange={edit('shirtStyle')} />
        <ColorPicker label="PANTS" colors={GENERAL_COLORS} value={draft.pantsColor} onChange={edit('pantsColor')} />
        <ColorPicker label="SHOES" colors={GENERAL_COLORS} value={draft.shoeColor} onChange={edit('shoeColor')} />
        <div className="button-row">
          <button type="button" className="pixel-button pixel-button--go" onClick={save}>
            SAVE CHANGES
          </button>
          <button type="button" className="pixel-button" onClick={() => setDraft({ ...DEFAULT_APPEARANCE })}>
            RESET
          </button>
        </div>
      </div>
    </div>
  );
}

/** The character customisation overlay (key C): edits a draft; SAVE CHANGES applies it. */
export function CustomisePanel() {
  const [open, setOpen] = useAtom(customiseOpenAtom);
  if (!open) return null;
  return (
    <GamePanel title="CUSTOMISE" onClose={() => setOpen(false)} className="customise-panel">
      <CustomiseForm onClose={() => setOpen(false)} />
    </GamePanel>
  );
}
