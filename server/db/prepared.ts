import type pg from 'pg';
import { preparedStatementsTotal } from '../metrics.js';
import { inlineParams, sqlLiteral } from './literals.js';
import type { ParameterizedSql } from './types.js';

/**
 * Statements kept prepared on one connection; past it the least recently run is deallocated. The
 * game's players send about 15 shapes of REST request (a crowd of 1,000 prepared 231-239 on the
 * 16 connections of a node), so a connection's steady set fits twice over; a client that varies
 * its queries to fill connections with plans (16-48 KB each) is held to this many per connection.
 */
export const PREPARED_PER_CONNECTION = 32;

/**
 * Longer statement texts are never prepared: a bulk write gives each row placeholders of its
 * own, so its shape is seldom seen twice, and its plan would only take room.
 */
export const MAX_PREPARED_TEXT = 16_384;

/** PostgreSQL's "prepared statement does not exist" (invalid_sql_statement_name). */
const STATEMENT_GONE = '26000';
/** PostgreSQL's "cached plan must not change result type" (feature_not_supported, with that message). */
const PLAN_CHANGED = '0A000';

/** `statement` as one text with its values inlined as literals, after its prefix. */
export function inlined(statement: ParameterizedSql): string {
  return (statement.prefix ?? '') + inlineParams(statement.text, statement.params);
}

/** What one connection has prepared: each text's statement name (null: PostgreSQL refused to prepare it), oldest use first. */
interface ConnectionStatements {
  names: Map<string, string | null>;
  generation: number;
}

/**
 * The statements a pool's connections keep prepared, as PostgREST prepares its queries: a REST
 * request of a shape seen before on its connection skips PostgreSQL's parse, analysis and
 * planning, and runs as `execute name(values…)` in the same one-trip script as its
 * transaction's settings (server/db/pool.ts). The values still travel as literals, each typed
 * by its placeholder's place in the statement, as a query parameter is.
 */
export interface PreparedStatements {
  /**
   * The text that runs `statement` on `client`. A shape new to the connection is prepared first,
   * in a round trip of its own (PREPARE and DEALLOCATE outlast a rolled-back transaction, so the
   * bookkeeping holds whatever the request does next). A text PostgreSQL refuses to prepare (a
   * placeholder whose type it cannot settle) or one too long runs with its values inlined, as
   * before. Throws what inlining throws (a NUL character) before anything is sent.
   */
  sql(client: pg.ClientBase, statement: ParameterizedSql): Promise<string>;
  /**
   * Whether `error` means a prepared statement failed for being prepared, before it ran: it no
   * longer exists (a transaction-mode pooler between the server and PostgreSQL hands each
   * transaction another connection; preparing stops for the pool), or a column it reads changed
   * type (every connection's statements are deallocated at its next use). The caller then runs
   * the statement again with its values inlined.
   */
  forgets(error: unknown): boolean;
}

/** The prepared statements of one pool's connections (see {@link PreparedStatements}). */
export function preparedStatements(perConnection = PREPARED_PER_CONNECTION): PreparedStatements {
  const kept = new WeakMap<pg.ClientBase, ConnectionStatements>();
  let generation = 0;
  let enabled = true;
  let named = 0;

  /** Prepares `text` on `client` under a new name, after `preamble`; null if PostgreSQL refused it. */
  async function prepare(client: pg.ClientBase, preamble: string, statement: ParameterizedSql): Promise<string | null> {
    const name = `tessera_rest_${++named}`;
    try {
      await client.query(`${preamble}${statement.prefix ?? ''}prepare ${name} as ${statement.text}`);
      preparedStatementsTotal.inc({ outcome: 'prepared' });
      return name;
    } catch {
      preparedStatementsTotal.inc({ outcome: 'refused' });
      return null;
    }
  }

  return {
    async sql(client, statement) {
      if (!enabled || statement.text.length > MAX_PREPARED_TEXT) return inlined(statement);
      const values = statement.params.length ? `(${statement.params.map(sqlLiteral).join(', ')})` : '';
      let own = kept.get(client);
      let preamble = '';
      if (!own || own.generation !== generation) {
        if (own) preamble = 'deallocate all; ';
        own = { names: new Map(), generation };
        kept.set(client, own);
      }
      const key = `${statement.prefix ?? ''}\n${statement.text}`;
      let name = own.names.get(key);
      if (name === undefined) {
        if (own.names.size >= perConnection) {
          const [oldest, oldestName] = own.names.entries().next().value!;
          own.names.delete(oldest);
          if (oldestName) preamble += `deallocate ${oldestName}; `;
        }
        name = await prepare(client, preamble, statement);
      } else {
        own.names.delete(key);
      }
      own.names.set(key, name);
      return name === null ? inlined(statement) : `${statement.prefix ?? ''}execute ${name}${values}`;
    },
    forgets(error) {
      const { code, message } = error as { code?: unknown; message?: unknown };
      if (code === STATEMENT_GONE) {
        enabled = false;
        return true;
      }
      if (code === PLAN_CHANGED && typeof message === 'string' && message.startsWith('cached plan must not change result type')) {
        generation++;
        return true;
      }
      return false;
    },
  };
}
