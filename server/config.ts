import { ConfigError } from './auth/site.js';
import type { ServerOptions } from './app.js';
import { operatorList } from './auth/operators.js';
import { parseAddressRange, type AddressRange } from './http/client-address.js';
import { LOG_LEVELS } from './log.js';

/** Shortest `METRICS_TOKEN` accepted: a guessable token would open the metrics to anyone. */
const MIN_METRICS_TOKEN = 16;

/** The settings `npm start` reads from the environment (README, "Configuration"). */
export type EnvSettings = Pick<
  ServerOptions,
  | 'port' | 'dataDir' | 'siteUrl' | 'additionalRedirectUrls' | 'signInsPerIp' | 'tokenRequestsPerIp' | 'authRequestsPerIp'
  | 'maxSocketsPerIp' | 'databaseUrl' | 'poolSize' | 'restSchemas' | 'metricsToken' | 'backupEveryMs' | 'backupKeep'
  | 'operatorWallets' | 'host' | 'trustedProxies' | 'redisUrl' | 'nodeId'
> & {
  /** `LOG_LEVEL`: the quietest level written. */
  logLevel: (typeof LOG_LEVELS)[number];
};

function positiveInteger(name: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new ConfigError(`${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return number;
}

/** `PGRST_DB_SCHEMAS`: comma-separated schema names, at least one, each at most 63 bytes. */
function schemaList(value: string): string[] {
  const schemas = [...new Set(value.split(',').map((name) => name.trim()))];
  if (schemas.some((name) => name === '' || Buffer.byteLength(name) > 63)) {
    throw new ConfigError(`PGRST_DB_SCHEMAS must list schema names separated by commas, got ${JSON.stringify(value)}`);
  }
  return schemas;
}

/** The positive integer in `env[name]`, or undefined when it is unset or empty. */
function optionalCount(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  return value ? positiveInteger(name, value) : undefined;
}

function metricsToken(value: string): string {
  if (value.length < MIN_METRICS_TOKEN || /\s/.test(value)) throw new ConfigError(`METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN} characters without spaces`);
  return value;
}

/** Minimum `BACKUP_EVERY`: a backup reads every row, so more often than this is a mistake. */
const MIN_BACKUP_EVERY_MS = 60_000;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `BACKUP_EVERY`: a number and a unit (`30m`, `6h`, `1d`), at least a minute. */
function duration(name: string, value: string): number {
  const match = /^(\d+)(s|m|h|d)$/.exec(value.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[match[2]!]! : NaN;
  if (!(ms >= MIN_BACKUP_EVERY_MS)) throw new ConfigError(`${name} must be a duration of at least a minute such as 30m, 6h or 1d, got ${JSON.stringify(value)}`);
  return ms;
}

/** `TRUSTED_PROXIES`: comma-separated addresses or CIDR ranges (`127.0.0.1`, `10.0.0.0/8`, `::1`). */
function proxyList(value: string): AddressRange[] {
  return value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '').map((entry) => {
    const range = parseAddressRange(entry);
    if (!range) throw new ConfigError(`TRUSTED_PROXIES must list IP addresses or CIDR ranges separated by commas, got ${JSON.stringify(entry)}`);
    return range;
  });
}

function logLevel(value: string): EnvSettings['logLevel'] {
  const level = LOG_LEVELS.find((name) => name === value);
  if (!level) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(value)}`);
  return level;
}

/**
 * Reads PORT (default 5173), HOST (the address to bind; default every interface), DATA_DIR
 * (default ./data), SITE_URL, ADDITIONAL_REDIRECT_URLS (comma-separated), RATE_LIMIT_WEB3,
 * RATE_LIMIT_TOKEN_REFRESH, RATE_LIMIT_AUTH_REQUESTS, REALTIME_MAX_SOCKETS_PER_IP, DATABASE_URL,
 * DB_POOL, PGRST_DB_SCHEMAS (comma-separated), METRICS_TOKEN, LOG_LEVEL, BACKUP_EVERY,
 * BACKUP_KEEP, OPERATOR_WALLETS (comma-separated) and TRUSTED_PROXIES (comma-separated addresses
 * or CIDR ranges whose `X-Forwarded-For` is believed; none by default). Throws
 * {@link ConfigError} for a malformed number, duration, token, level or proxy entry; the URLs
 * are checked by the server when it starts.
 */
export function readEnv(env: NodeJS.ProcessEnv): EnvSettings {
  return {
    port: env.PORT ? Number(env.PORT) : 5173,
    host: env.HOST || undefined,
    dataDir: env.DATA_DIR || './data',
    siteUrl: env.SITE_URL || undefined,
    additionalRedirectUrls: (env.ADDITIONAL_REDIRECT_URLS ?? '').split(',').map((url) => url.trim()).filter((url) => url !== ''),
    signInsPerIp: optionalCount(env, 'RATE_LIMIT_WEB3'),
    tokenRequestsPerIp: optionalCount(env, 'RATE_LIMIT_TOKEN_REFRESH'),
    authRequestsPerIp: optionalCount(env, 'RATE_LIMIT_AUTH_REQUESTS'),
    maxSocketsPerIp: optionalCount(env, 'REALTIME_MAX_SOCKETS_PER_IP'),
    databaseUrl: env.DATABASE_URL || undefined,
    poolSize: optionalCount(env, 'DB_POOL'),
    restSchemas: env.PGRST_DB_SCHEMAS ? schemaList(env.PGRST_DB_SCHEMAS) : undefined,
    metricsToken: env.METRICS_TOKEN ? metricsToken(env.METRICS_TOKEN) : undefined,
    logLevel: env.LOG_LEVEL ? logLevel(env.LOG_LEVEL) : 'info',
    backupEveryMs: env.BACKUP_EVERY ? duration('BACKUP_EVERY', env.BACKUP_EVERY) : undefined,
    backupKeep: env.BACKUP_KEEP ? positiveInteger('BACKUP_KEEP', env.BACKUP_KEEP) : undefined,
    operatorWallets: operatorList(env.OPERATOR_WALLETS),
    trustedProxies: env.TRUSTED_PROXIES ? proxyList(env.TRUSTED_PROXIES) : [],
    redisUrl: env.REDIS_URL || undefined,
    nodeId: env.NODE_ID || undefined,
  };
}
