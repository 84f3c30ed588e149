import { NAME_TAKEN, nameProblem } from '../../../components/text.js';
import { getSupabase } from '../../../net/client.js';
import { isNameTaken } from '../../../net/names.js';
import { store } from '../../state/store.js';
import { signedInAtom } from '../../state/wallet-atoms.js';

/**
 * Longest wait for the wallet's sign-in before the name is checked anyway: the held names are
 * readable only when signed in, and the server refuses a held name at world entry regardless.
 */
const SIGN_IN_WAIT_MS = 10_000;

/** Resolves once the connected wallet is signed in, or after {@link SIGN_IN_WAIT_MS}. */
function signedIn(): Promise<void> {
  if (store.get(signedInAtom)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop();
      resolve();
    };
    const timer = setTimeout(done, SIGN_IN_WAIT_MS);
    const stop = store.sub(signedInAtom, () => {
      if (store.get(signedInAtom)) done();
    });
  });
}

/**
 * Why `name` cannot be this wallet's name: a forbidden character, or another player holding it.
 * Null when the server would take it. A name chosen right after connecting is checked once the
 * sign-in has finished, so it is read as a signed-in player.
 */
export async function nameRefusal(name: string, playerId: string | null): Promise<string | null> {
  const problem = nameProblem(name);
  if (problem || !playerId) return problem;
  await signedIn();
  return (await isNameTaken(await getSupabase(), name, playerId)) ? NAME_TAKEN : null;
}
