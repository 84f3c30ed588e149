import { ConfigError } from './auth/site.js';
import type { ServerOptions } from './app.js';
import { operatorList } from './auth/operators.js';

/** The settings `npm start` reads from the environment (README, "Configuration"). */
export type EnvSettings = Pick<ServerOptions, 'port' | 'dataDir' | 'siteUrl' | 'additionalRedirectUrls' | 'signInsPerIp' | 'databaseUrl' | 'poolSize' | 'restSchemas' | 'operatorWallets'>;

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

/**
 * Reads PORT (default 5173), DATA_DIR (default ./data), SITE_URL, ADDITIONAL_REDIRECT_URLS
 * (comma-separated), RATE_LIMIT_WEB3, DATABASE_URL, DB_POOL, PGRST_DB_SCHEMAS and OPERATOR_WALLETS (comma-separated). Throws {@link ConfigError} for a malformed number;
 * the URLs are checked by the server when it starts.
 */
export function readEnv(env: NodeJS.ProcessEnv): EnvSettings {
  return {
    port: env.PORT ? Number(env.PORT) : 5173,
    dataDir: env.DATA_DIR || './data',
    siteUrl: env.SITE_URL || undefined,
    additionalRedirectUrls: (env.ADDITIONAL_REDIRECT_URLS ?? '').split(',').map((url) => url.trim()).filter((url) => url !== ''),
    signInsPerIp: env.RATE_LIMIT_WEB3 ? positiveInteger('RATE_LIMIT_WEB3', env.RATE_LIMIT_WEB3) : undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    poolSize: env.DB_POOL ? positiveInteger('DB_POOL', env.DB_POOL) : undefined,
    restSchemas: env.PGRST_DB_SCHEMAS ? schemaList(env.PGRST_DB_SCHEMAS) : undefined,
    operatorWallets: operatorList(env.OPERATOR_WALLETS),
  };
}
