import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../../../server/auth/site.js';
import { readEnv } from '../../../server/config.js';

const refusal = (env: NodeJS.ProcessEnv) => {
  try {
    readEnv(env);
    return null;
  } catch (error) {
    assert.instance(error, ConfigError);
    return (error as Error).message;
  }
};

test('operations settings: defaults, durations, keep count, token and level', () => {
  const defaults = readEnv({});
  assert.equal([defaults.logLevel, defaults.metricsToken, defaults.backupEveryMs, defaults.backupKeep], ['info', undefined, undefined, undefined]);
  const set = readEnv({ LOG_LEVEL: 'warn', METRICS_TOKEN: 'x'.repeat(16), BACKUP_EVERY: '24h', BACKUP_KEEP: '3' });
  assert.equal([set.logLevel, set.metricsToken, set.backupEveryMs, set.backupKeep], ['warn', 'x'.repeat(16), 86_400_000, 3]);
  assert.is(readEnv({ BACKUP_EVERY: '90s' }).backupEveryMs, 90_000);
  assert.is(readEnv({ BACKUP_EVERY: '2d' }).backupEveryMs, 172_800_000);
});

test('HOST and TRUSTED_PROXIES: every interface and no proxy by default; the addresses and ranges given', () => {
  const defaults = readEnv({});
  assert.equal([defaults.host, defaults.trustedProxies], [undefined, []]);
  const set = readEnv({ HOST: '127.0.0.1', TRUSTED_PROXIES: '127.0.0.1, ::1,10.0.0.0/8,' });
  assert.is(set.host, '127.0.0.1');
  assert.equal(set.trustedProxies, [
    { address: '127.0.0.1', prefix: 32, family: 'ipv4' },
    { address: '::1', prefix: 128, family: 'ipv6' },
    { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
  ]);
});

test('hostile or mistaken settings stop the start with a sentence naming them', () => {
  assert.is(refusal({ BACKUP_EVERY: '30s' }), 'BACKUP_EVERY must be a duration of at least a minute such as 30m, 6h or 1d, got "30s"');
  assert.is(refusal({ BACKUP_EVERY: '1w' }), 'BACKUP_EVERY must be a duration of at least a minute such as 30m, 6h or 1d, got "1w"');
  assert.is(refusal({ BACKUP_KEEP: '0' }), 'BACKUP_KEEP must be a positive integer, got "0"');
  assert.is(refusal({ METRICS_TOKEN: 'short' }), 'METRICS_TOKEN must be at least 16 characters without spaces');
  assert.is(refusal({ METRICS_TOKEN: 'has spaces in it, sixteen+' }), 'METRICS_TOKEN must be at least 16 characters without spaces');
  assert.is(refusal({ TRUSTED_PROXIES: '127.0.0.1,localhost' }), 'TRUSTED_PROXIES must list IP addresses or CIDR ranges separated by commas, got "localhost"');
  assert.is(refusal({ TRUSTED_PROXIES: '10.0.0.0/33' }), 'TRUSTED_PROXIES must list IP addresses or CIDR ranges separated by commas, got "10.0.0.0/33"');
  assert.is(refusal({ LOG_LEVEL: 'verbose' }), 'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "verbose"');
});

test.run();
