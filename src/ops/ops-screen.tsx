import type { SupabaseClient } from '@supabase/supabase-js';
import { useEffect, useState } from 'react';
import { getSupabase } from '../../net/client.js';
import { isOperator } from '../../net/ops.js';
import { NotFoundScreen } from '../screens/not-found-screen.js';
import { ClaimsPanel } from './claims-panel.js';
import { BanPanel, OpsLogPanel, ReportQueue, RollbackPanel, TileInspector, type Prefill } from './ops-panels.js';

/** How often the console reloads its lists. */
const REFRESH_MS = 15_000;

/** Whether this browser's session is an operator's: null while asking. */
function useOperatorClient(): SupabaseClient | false | null {
  const [client, setClient] = useState<SupabaseClient | false | null>(null);
  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const db = await getSupabase();
        const { data } = await db.auth.getSession();
        const allowed = data.session !== null && (await isOperator(db));
        if (live) setClient(allowed ? db : false);
      } catch {
        if (live) setClient(false);
      }
    })();
    return () => {
      live = false;
    };
  }, []);
  return client;
}

/**
 * Route `/ops`: the operators' console (report queue, bans, tile inspector, rollback with a
 * preview, every land claim, the log). Anyone who is not a signed-in operator gets the not-found screen; the
 * database refuses their requests anyway.
 */
export function OpsScreen() {
  const db = useOperatorClient();
  const [prefill, setPrefill] = useState<Prefill>({});
  const [version, setVersion] = useState(0);
  // New reports, bans and log entries appear without a reload.
  useEffect(() => {
    const timer = setInterval(() => setVersion((v) => v + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  if (db === null) return <main className="message-screen"><p>Loading...</p></main>;
  if (db === false) return <NotFoundScreen />;
  const changed = () => setVersion((v) => v + 1);
  return (
    <main className="ops-screen" data-testid="ops-screen">
      <h1 className="ops-title">TESSERA OPERATORS</h1>
      <div className="ops-grid">
        <ReportQueue db={db} version={version} onChange={changed} onPrefill={setPrefill} />
        <BanPanel db={db} version={version} onChange={changed} prefill={prefill} />
        <RollbackPanel db={db} onChange={changed} prefill={prefill} />
        <TileInspector db={db} />
        <ClaimsPanel db={db} onChange={changed} />
        <OpsLogPanel db={db} version={version} />
      </div>
    </main>
  );
}
