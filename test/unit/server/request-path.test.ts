import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pathRefusal, pathRefusalBody, requestPath } from '../../../server/http/request-path.js';

test('the path is what comes before the query, which is never judged', () => {
  assert.is(requestPath('/rest/v1/game_blocks?select=*&x=gte.1&or=(a.eq.1,b.eq.2)'), '/rest/v1/game_blocks');
  assert.is(requestPath('/metrics'), '/metrics');
  assert.is(requestPath('/a?b?c'), '/a');
  assert.is(requestPath(undefined), '');
  assert.is(pathRefusal(requestPath('/rest/v1/game_blocks?select=../..&x=%2F%5C%2E')), null);
});

test('the paths the game and supabase-js send are in normal form', () => {
  for (const path of [
    '/', '/index.html', '/config.json', '/assets/index-abc.js', '/assets/app-3GXLP2Q5.js', '/healthz', '/readyz', '/metrics',
    '/rest/v1/game_blocks', '/rest/v1/rpc/place_block', '/auth/v1/token', '/auth/v1/user', '/auth/v1/admin/users/0b5c-9e',
    '/realtime/v1/websocket', '/realtime/v1/api/broadcast', '/realtime/v1/api/broadcast/realtime%3Aregion%3A1%3A7/events/pose',
    '/world/some-page/', '/.well-known/security.txt', '/a...b/c.d', '/%C3%A9t%C3%A9', '/%c3%a9', '/100%25', "/a;b=c,d!$&'()*+@:~",
  ]) {
    assert.is(pathRefusal(path), null, path);
  }
});

test('each way a path could be read two ways is refused, with its reason', () => {
  const cases: [string, string][] = [
    ['/.\\metrics', 'a backslash'],
    ['/x\\..\\metrics', 'a backslash'],
    ['/%5Cmetrics', 'an encoded backslash'],
    ['/x%5c..%5cmetrics', 'an encoded backslash'],
    ['/%2E%2E/metrics', 'an encoded letter, digit, "-", ".", "_" or "~"'],
    ['/x/%2e%2e/metrics', 'an encoded letter, digit, "-", ".", "_" or "~"'],
    ['/%2E/metrics', 'an encoded letter, digit, "-", ".", "_" or "~"'],
    ['/%6Detrics', 'an encoded letter, digit, "-", ".", "_" or "~"'],
    ['/rest/v1/..%2Fauth', 'an encoded "/"'],
    ['/x%2fmetrics', 'an encoded "/"'],
    ['/metrics%00', 'an encoded control character'],
    ['/a%0Ab', 'an encoded control character'],
    ['/a%7Fb', 'an encoded control character'],
    ['//metrics', 'an empty segment ("//")'],
    ['/x//metrics', 'an empty segment ("//")'],
    ['/./metrics', 'a dot segment ("." or "..")'],
    ['/x/../metrics', 'a dot segment ("." or "..")'],
    ['/..', 'a dot segment ("." or "..")'],
    ['/assets/.', 'a dot segment ("." or "..")'],
    ['/%ZZ', 'invalid percent-encoding'],
    ['/%', 'invalid percent-encoding'],
    ['/assets/%E0%A4%A', 'invalid percent-encoding'],
    ['/%FF', 'invalid percent-encoding'],
    ['/%C3/%A9', 'invalid percent-encoding'],
    ['/a b', 'a character that must be percent-encoded'],
    ['/metrics\u0000', 'a character that must be percent-encoded'],
    ['/a\tb', 'a character that must be percent-encoded'],
    ['/é', 'a character that must be percent-encoded'],
    ['/a#b', 'a character that must be percent-encoded'],
    ['/a"b', 'a character that must be percent-encoded'],
    ['/a{b}', 'a character that must be percent-encoded'],
    ['metrics', 'it does not start with "/"'],
    ['http://127.0.0.1/metrics', 'it does not start with "/"'],
    ['*', 'it does not start with "/"'],
    ['', 'it does not start with "/"'],
  ];
  for (const [path, reason] of cases) assert.is(pathRefusal(path), reason, JSON.stringify(path));
});

test('the refusal names its reason', () => {
  assert.equal(pathRefusalBody('a backslash'), { code: 'invalid_path', message: 'The request path is not in normal form: a backslash' });
});

test.run();
