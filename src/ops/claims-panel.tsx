import type { SupabaseClient } from '@supabase/supabase-js';
import { useState, type FormEvent } from 'react';
import { inspectClaim, listClaims, removeClaim, type ClaimDetails, type ClaimFilter, type OpsClaim } from '../../net/ops.js';
import { Section, attempt, shortWallet, time } from './ops-panels.js';

/** Claims a page of the panel lists. */
const PAGE_SIZE = 50;

const rect = (c: OpsClaim) => `${c.x1},${c.y1}..${c.x2},${c.y2} (${c.x2 - c.x1 + 1}x${c.y2 - c.y1 + 1})`;

function ClaimDetailsView({ details }: { details: ClaimDetails }) {
  const ban = details.owner_ban;
  return (
    <div className="ops-note ops-claim-details" data-testid="ops-claim-details">
      <p>
        Owner last present {details.owner_last_present ? time(details.owner_last_present) : 'never'}
        {ban ? `; banned from ${ban.scope} ${ban.until ? `until ${time(ban.until)}` : 'with no end'}: ${ban.reason}` : ''}
      </p>
      <p>
        {details.blocks} blocks, {details.owner_blocks} of them the owner&apos;s; {details.members.length} trusted
        {details.members.length ? `: ${details.members.map((m) => m.player_name ?? shortWallet(m.player_id)).join(', ')}` : ''}
      </p>
    </div>
  );
}

/** The form's filter: an owner, and an area when x, y and radius are all given. */
function filterOf(owner: string, x: string, y: string, radius: string): ClaimFilter {
  const filter: ClaimFilter = { pageSize: PAGE_SIZE };
  if (owner.trim()) filter.owner = owner.trim();
  if (x.trim() && y.trim() && radius.trim()) filter.area = { x: Number(x), y: Number(y), radius: Number(radius) };
  return filter;
}

/**
 * Every claim, lapsed ones too: listed on demand (each listing is logged, so the panel does not
 * follow the console's refresh), newest first, a page at a time; each can be inspected and
 * removed for a reason.
 */
export function ClaimsPanel({ db, onChange }: { db: SupabaseClient; onChange(): void }) {
  const [owner, setOwner] = useState('');
  const [x, setX] = useState('');
  const [y, setY] = useState('');
  const [radius, setRadius] = useState('');
  const [reason, setReason] = useState('');
  const [claims, setClaims] = useState<OpsClaim[] | null>(null);
  const [details, setDetails] = useState<ClaimDetails | null>(null);
  const [full, setFull] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const list = (event: FormEvent) => {
    event.preventDefault();
    setDetails(null);
    void attempt(setError, async () => {
      const page = await listClaims(db, filterOf(owner, x, y, radius));
      setClaims(page);
      setFull(page.length === PAGE_SIZE);
    });
  };
  const more = () =>
    void attempt(setError, async () => {
      const page = await listClaims(db, { ...filterOf(owner, x, y, radius), after: claims![claims!.length - 1] });
      setClaims([...claims!, ...page]);
      setFull(page.length === PAGE_SIZE);
    });
  const inspect = (id: string) => void attempt(setError, async () => setDetails(await inspectClaim(db, id)));
  const remove = (id: string) =>
    void attempt(setError, async () => {
      if (!reason.trim()) throw new Error('Give a reason for the removal first.');
      await removeClaim(db, id, reason.trim());
      setClaims((shown) => shown?.filter((claim) => claim.id !== id) ?? null);
      if (details?.id === id) setDetails(null);
      onChange();
    });
  return (
    <Section title="CLAIMS" error={error}>
      <form className="ops-form" onSubmit={list} aria-label="List claims">
        <input className="pixel-input" placeholder="Owner wallet (any)" aria-label="Claim owner" value={owner} onChange={(e) => setOwner(e.target.value)} />
        <input className="pixel-input" placeholder="x" aria-label="Claims near x" value={x} onChange={(e) => setX(e.target.value)} inputMode="numeric" />
        <input className="pixel-input" placeholder="y" aria-label="Claims near y" value={y} onChange={(e) => setY(e.target.value)} inputMode="numeric" />
        <input className="pixel-input" placeholder="radius" aria-label="Claims radius" value={radius} onChange={(e) => setRadius(e.target.value)} inputMode="numeric" />
        <button type="submit" className="pixel-button pixel-button--small">
          List claims
        </button>
      </form>
      <div className="ops-form">
        <input className="pixel-input" placeholder="Reason for a removal" aria-label="Why the claim is removed" maxLength={200} value={reason} onChange={(e) => setReason(e.target.value)} />
      </div>
      {claims && claims.length === 0 ? <p className="chat-empty">No claims.</p> : null}
      <ol className="ops-list">
        {claims?.map((claim) => (
          <li key={claim.id} className="ops-row" data-testid="ops-claim">
            <span>
              {claim.owner_name} ({shortWallet(claim.owner_id)}) · {rect(claim)} · {claim.members} trusted · {claim.holds ? 'holds' : 'lapsed'} · {time(claim.created_at)}
            </span>
            <button type="button" className="pixel-button pixel-button--small" onClick={() => inspect(claim.id)}>
              Inspect
            </button>
            <button type="button" className="pixel-button pixel-button--small pixel-button--danger" onClick={() => remove(claim.id)}>
              Remove
            </button>
            {details?.id === claim.id ? <ClaimDetailsView details={details} /> : null}
          </li>
        ))}
      </ol>
      {full && claims?.length ? (
        <button type="button" className="pixel-button pixel-button--small" onClick={more}>
          More
        </button>
      ) : null}
    </Section>
  );
}
