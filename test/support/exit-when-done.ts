/**
 * Loaded by `npm run test:server` and `test:e2e` before the suites (`uvu -r`): once uvu has
 * printed its summary, the process exits with uvu's exit code. A client a suite left open (a
 * supabase-js socket retrying a server the suite has stopped, a timer of a headless player)
 * would otherwise keep the runner alive after every suite has finished, and CI would wait for it.
 */
const SUMMARY = 'Duration:';
/** Time left to the output's last writes before the process ends. */
const EXIT_AFTER_MS = 500;

const write = process.stdout.write.bind(process.stdout) as (chunk: unknown, ...rest: unknown[]) => boolean;
let ending = false;
process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
  if (!ending && String(chunk).includes(SUMMARY)) {
    ending = true;
    setTimeout(() => process.exit(), EXIT_AFTER_MS).unref();
  }
  return write(chunk, ...rest);
}) as typeof process.stdout.write;
