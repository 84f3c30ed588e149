import { useAtom, useAtomValue } from 'jotai';
import { useCallback, useEffect, useState } from 'react';
import { claimShapeProblem, rectSize, type TileRect } from '../../components/claims.js';
import type { ClaimsFollower } from '../../net/claims/claims.js';
import type { ClaimBudget, OwnClaim } from '../../net/claims/requests.js';
import { hudAtoms } from '../state/hud-atoms.js';
import { landClaimsAtom } from '../state/social-atoms.js';
import { landOpenAtom, touchLayoutAtom } from '../state/ui-atoms.js';
import { GamePanel } from './game-panel.js';
import { useGameCommand } from './use-game-command.js';

/** The claim tool's rectangle from its HUD field ('x1,y1,x2,y2'), or null. */
export function parseDraft(text: string): TileRect | null {
  const parts = text.split(',').map(Number);
  if (parts.length !== 4 || parts.some((n) => !Number.isInteger(n))) return null;
  const [x1, y1, x2, y2] = parts as [number, number, number, number];
  return { x1, y1, x2, y2 };
}

/** The claim tool: choose a rectangle on the map, read its size and cost, CONFIRM or CANCEL. */
function ClaimTool({ claims, budget, onDone }: { claims: ClaimsFollower; budget: ClaimBudget | null; onDone(message: string): void }) {
  const touch = useAtomValue(touchLayoutAtom);
  const draft = parseDraft(useAtomValue(hudAtoms.claimDraft));
  const [refusal, setRefusal] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const size = draft && rectSize(draft);
  const problem = draft && claimShapeProblem(draft);
  const confirm = async () => {
    if (!draft) return;
    setSending(true);
    const why = await claims.create(draft);
    setSending(false);
    if (why) setRefusal(why);
    else onDone(`Claimed ${size!.width}x${size!.height} (${size!.tiles} tiles).`);
  };
  return (
    <div className="land-tool" data-testid="land-tool">
      <p className="panel-hint">{touch ? 'TAP TWO CORNERS OF THE LAND' : 'DRAG A RECTANGLE OVER THE LAND'}</p>
      {size ? (
        <p className="land-size" data-testid="land-size">
          {size.width}x{size.height} = {size.tiles} TILES{budget ? ` OF ${budget.available}` : ''}
        </p>
      ) : (
        <p className="land-size">NO LAND CHOSEN</p>
      )}
      {(refusal ?? problem) && <p className="land-refusal" data-testid="land-refusal">{refusal ?? problem}</p>}
      <div className="button-row">
        <button type="button" className="pixel-button pixel-button--small pixel-button--go" disabled={!draft || !!problem || sending} onClick={() => void confirm()}>
          CONFIRM
        </button>
        <button type="button" className="pixel-button pixel-button--small" onClick={() => onDone('')}>
          CANCEL
        </button>
      </div>
    </div>
  );
}

/** One of the player's claims: where, how big, who is trusted (remove, add by name), ABANDON. */
function OwnClaimRow({ own, claims, onMessage }: { own: OwnClaim; claims: ClaimsFollower; onMessage(message: string): void }) {
  const [name, setName] = useState('');
  const { claim, members } = own;
  const { width, height } = rectSize(claim);
  const act = async (request: Promise<string | null>, done: string) => onMessage((await request) ?? done);
  return (
    <li className="land-claim" data-testid="land-claim">
      <p className="land-claim-title">
        {claim.x1},{claim.y1} TO {claim.x2},{claim.y2} ({width}x{height})
        <button type="button" className="pixel-button pixel-button--small" onClick={() => void act(claims.abandon(claim.id), 'Claim abandoned: its tiles are yours to claim again.')}>
          ABANDON
        </button>
      </p>
      <ul className="land-members">
        {members.map((member) => (
          <li key={member.playerId} data-testid="land-member">
            {member.name}
            <button type="button" className="pixel-button pixel-button--small" aria-label={`Remove ${member.name}`} onClick={() => void act(claims.untrust(claim.id, member.playerId), `${member.name} may no longer build here.`)}>
              REMOVE
            </button>
          </li>
        ))}
      </ul>
      <form
        className="land-trust"
        onSubmit={(event) => {
          event.preventDefault();
          const wanted = name.trim();
          void act(claims.trust(claim.id, wanted), `${wanted} may build here now.`).then(() => setName(''));
        }}
      >
        <input className="pixel-input" value={name} maxLength={20} placeholder="PLAYER NAME" aria-label="Name of the player to trust" onChange={(event) => setName(event.target.value)} />
        <button type="submit" className="pixel-button pixel-button--small" disabled={!name.trim()}>
          TRUST
        </button>
      </form>
    </li>
  );
}

function LandBody({ claims }: { claims: ClaimsFollower }) {
  const push = useGameCommand();
  const [budget, setBudget] = useState<ClaimBudget | null>(null);
  const [mine, setMine] = useState<OwnClaim[]>([]);
  const [tool, setTool] = useState(false);
  const [message, setMessage] = useState('');
  const refresh = useCallback(async () => {
    try {
      const [nextBudget, nextMine] = await Promise.all([claims.budget(), claims.mine()]);
      setBudget(nextBudget);
      setMine(nextMine);
    } catch (error) {
      setMessage((error as { message?: string }).message || 'The server could not be reached.');
    }
  }, [claims]);
  useEffect(() => {
    void refresh();
    return claims.onOwnChange(() => void refresh());
  }, [claims, refresh]);
  const switchTool = (active: boolean) => {
    setTool(active);
    push({ kind: 'claimTool', active });
  };
  if (tool) {
    return (
      <ClaimTool
        claims={claims}
        budget={budget}
        onDone={(done) => {
          switchTool(false);
          setMessage(done);
        }}
      />
    );
  }
  return (
    <div className="land-body">
      <p className="land-budget" data-testid="land-budget">
        {budget ? `CLAIM TILES: ${budget.available} OF ${budget.total} FREE` : 'CLAIM TILES: ...'}
      </p>
      {message && <p className="land-message" data-testid="land-message">{message}</p>}
      <button type="button" className="pixel-button pixel-button--small pixel-button--go" onClick={() => switchTool(true)}>
        CLAIM LAND
      </button>
      {mine.length === 0 ? (
        <p className="panel-hint">NO CLAIMS YET. ONLY YOU AND THE PLAYERS YOU TRUST BUILD ON YOUR LAND.</p>
      ) : (
        <ul className="land-claims">
          {mine.map((own) => (
            <OwnClaimRow key={own.claim.id} own={own} claims={claims} onMessage={setMessage} />
          ))}
        </ul>
      )}
      <p className="panel-hint">
        <span className="land-key land-key--own" /> YOURS <span className="land-key land-key--trusted" /> TRUSTED <span className="land-key land-key--other" /> OTHERS
      </p>
    </div>
  );
}

/**
 * The LAND panel (key L): the claim-tile budget, the player's claims with the players they trust,
 * and the claim tool. While it is open the game view outlines the claims in view.
 */
export function LandPanel() {
  const [open, setOpen] = useAtom(landOpenAtom);
  const claims = useAtomValue(landClaimsAtom);
  const push = useGameCommand();
  useEffect(() => {
    push({ kind: 'showClaims', shown: open });
    if (!open) push({ kind: 'claimTool', active: false });
  }, [open, push]);
  if (!open) return null;
  return (
    <GamePanel title="LAND" onClose={() => setOpen(false)} className="land-panel">
      {claims ? <LandBody claims={claims} /> : <p className="panel-hint">LAND CLAIMS NEED A CONNECTION TO THE SERVER.</p>}
    </GamePanel>
  );
}
