import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { store } from '../../../src/state/store.js';
import { dismissToast, showToast, toastsAtom } from '../../../src/state/toasts.js';

test('the same toast twice shows once; a different one is added; dismissing removes it', () => {
  const refused = { title: 'Block Not Placed', description: 'Too fast. Slow down a little.', variant: 'destructive' as const };
  showToast(refused);
  showToast(refused);
  showToast({ title: 'Spawn Protected', description: 'Cannot build in spawn area - protected zone!', variant: 'default' });
  const shown = store.get(toastsAtom);
  assert.equal(shown.map((t) => t.title), ['Block Not Placed', 'Spawn Protected']);
  for (const toast of shown) dismissToast(toast.id);
  assert.equal(store.get(toastsAtom), []);
  showToast(refused);
  assert.is(store.get(toastsAtom).length, 1, 'shown again once the first is gone');
  dismissToast(store.get(toastsAtom)[0]!.id);
});

test.run();
