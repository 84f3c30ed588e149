/**
 * The server's two loggers (server/log.ts) on one standard output: `log` writes a secret-named
 * field as `[Redacted]`, at the top and nested; `accessLog`, whose lines are built from chosen
 * fields only, writes them as given, with the same level, time and pid.
 */
import { execFileSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/** The lines a fresh process writes through both loggers. */
function loggedLines(): Record<string, unknown>[] {
  const script = `
    const { log, accessLog } = await import('./server/log.ts');
    log.child({ reqId: 'failed-1' }).error({ status: 500, request: { message: 'boom', authorization: 'Bearer s3cret', headers: { apikey: 'k3y' } }, token: 't0ken' }, 'failed');
    accessLog.info({ reqId: 'served-1', method: 'GET', path: '/rest/v1/game_players', client: '203.0.113.9', status: 200, ms: 3 }, 'request');`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'info' } });
  assert.not.match(out, /s3cret|k3y|t0ken/);
  return out.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

test('log redacts secret-named fields; the access log writes its chosen fields as given', () => {
  const [failed, served] = loggedLines();
  assert.equal(failed!.request, { message: 'boom', authorization: '[Redacted]', headers: { apikey: '[Redacted]' } });
  assert.is(failed!.token, '[Redacted]');
  assert.is(failed!.reqId, 'failed-1');
  assert.equal(Object.keys(served!), ['level', 'time', 'pid', 'reqId', 'method', 'path', 'client', 'status', 'ms', 'msg']);
  assert.equal(
    { ...served, time: undefined, pid: undefined },
    { level: 30, time: undefined, pid: undefined, reqId: 'served-1', method: 'GET', path: '/rest/v1/game_players', client: '203.0.113.9', status: 200, ms: 3, msg: 'request' },
  );
  assert.match(served!.time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.is(served!.pid, failed!.pid);
});

test.run();
