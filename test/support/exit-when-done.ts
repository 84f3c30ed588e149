/**
 * Loaded by `npm run test:server` and `test:e2e` before the suites (`uvu -r`): once uvu has
 * printed its summary, the process exits with uvu's exit code. A client a suite left open (a
 * supabase-js socket retrying a server the suite has stopped, a timer of a headless player)
 * would otherwise keep the runner alive after every suite has finished, and CI would wait for it.
 *
 * It also fails a run in which tests were neither passed nor failed. uvu reports a suite whose
 * `before` hook threw as `(0 / N)` and goes on with exit code 0, so a set-up that breaks would
 * otherwise pass the run with its tests never run.
 */
const SUMMARY = 'Duration:';
/** Time left to the output's last writes before the process ends. */
const EXIT_AFTER_MS = 500;
/** How much of the latest output is kept to read the summary from. */
const KEPT_CHARS = 4096;

const write = process.stdout.write.bind(process.stdout) as (chunk: unknown, ...rest: unknown[]) => boolean;
let ending = false;
let recent = '';
process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
  if (!ending) {
    recent = (recent + String(chunk)).slice(-KEPT_CHARS);
    if (recent.includes(SUMMARY)) {
      ending = true;
      const missing = testsNotPassed(recent);
      const written = write(chunk, ...rest);
      if (missing > 0) {
        write(`  ${missing} test(s) did not pass: failed, or never run because a suite's set-up (its before hook) failed; see "(k / n)" above.\n`);
        // uvu sets its exit code after the summary: this one is set as the process exits.
        process.on('exit', () => (process.exitCode = 1));
      }
      setTimeout(() => process.exit(), EXIT_AFTER_MS).unref();
      return written;
    }
  }
  return write(chunk, ...rest);
}) as typeof process.stdout.write;

/** Total minus passed in uvu's summary (0 when it cannot be read). */
function testsNotPassed(summary: string): number {
  const colourless = summary.replace(/\u001b\[[0-9;]*m/g, '');
  // The summary is the last "Total:" written; a test's own output above it may use the word.
  const plain = colourless.slice(Math.max(0, colourless.lastIndexOf('Total:')));
  const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1]);
  const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1]);
  return Number.isFinite(total) && Number.isFinite(passed) ? total - passed : 0;
}
