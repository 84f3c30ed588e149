/**
 * Backups of a world as one consistent snapshot, written while players play, and their restore
 * into a new DATA_DIR or a hosted database.
 *
 * Why COPY and not pg_dump: the embedded PostgreSQL package ships no pg_dump, and Debian's
 * pg_dump (15) refuses to dump a 17 server. PostgreSQL's online (physical) backup would copy the
 * whole cluster, which cannot be loaded into a hosted project. So the archive holds the rows:
 * every table of one REPEATABLE READ, READ ONLY transaction (one snapshot, no locks that block
 * writers) is streamed with `COPY … TO STDOUT` (pg-copy-streams), in text format with named
 * columns, and loaded back with `COPY … FROM STDIN` into a database whose schema the migrations
 * made. Text format with column names keeps it loadable across PostgreSQL versions and into a
 * table with more columns (hosted's auth.users).
 *
 * The archive is gzip of lines: a JSON header (format, time, the token-signing secret, the
 * tables and their columns); per table a JSON line `{"table", "columns"}`, its rows as COPY text
 * lines and a `\.` line; a JSON trailer with each table's row count and the SHA-256 of its rows.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { Writable, type Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { advanceSequences } from '../db/import-pglite.js';

/** The archive format's name in its header. */
export const ARCHIVE_FORMAT = 'tessera-backup';
/** The archive format's version in its header; a restore refuses any other. */
export const ARCHIVE_VERSION = 1;
/** The auth tables a world needs: who the players are, their sessions, and which signed messages were used. */
export const AUTH_TABLES = ['auth.users', 'auth.identities', 'auth.sessions', 'auth.refresh_tokens', 'auth.revoked_sessions', 'auth.web3_used_messages'];
/** Schemas whose every table the migrations create. */
export const WORLD_SCHEMAS = ['public', 'game_private'];
const END_OF_TABLE = '\\.';

/** A table in the archive. */
export interface ArchivedTable {
  name: string;
  columns: string[];
}

/** What the archive's last line holds per table. */
export interface TableSummary {
  rows: number;
  sha256: string;
}

/** A progress report: the table being copied, rows so far in it, and bytes written or read so far. */
export type Progress = (table: string, rows: number, bytes: number) => void;

const quoteName = (name: string) => name.split('.').map((part) => pg.escapeIdentifier(part)).join('.');

/** The tables to archive that exist in the connected database: the world's schemas and the auth tables, in name order. */
async function tablesOf(client: pg.Client): Promise<ArchivedTable[]> {
  const { rows } = await client.query<{ name: string; columns: string[] }>(
    `select n.nspname || '.' || c.relname as name,
            array_agg(a.attname::text order by a.attnum) as columns
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
      where c.relkind in ('r', 'p') and (n.nspname = any($1) or n.nspname || '.' || c.relname = any($2))
      group by 1 order by 1`,
    [WORLD_SCHEMAS, AUTH_TABLES],
  );
  return rows;
}

/** The primary key's columns of `table`, or all its columns: the order rows are copied in, the same on both sides. */
async function orderOf(client: pg.Client, table: ArchivedTable): Promise<string[]> {
  const { rows } = await client.query<{ column: string }>(
    `select a.attname::text as column from pg_index i
       join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
      where i.indrelid = $1::regclass and i.indisprimary order by array_position(i.indkey, a.attnum)`,
    [quoteName(table.name)],
  );
  return rows.length > 0 ? rows.map((row) => row.column) : table.columns;
}

/** The query whose COPY text is a table's archived rows, in a fixed order. */
async function selectFor(client: pg.Client, table: ArchivedTable, columns = table.columns): Promise<string> {
  const order = (await orderOf(client, table)).filter((column) => columns.includes(column));
  const list = columns.map((column) => pg.escapeIdentifier(column)).join(', ');
  return `select ${list} from ${quoteName(table.name)}${order.length ? ` order by ${order.map((c) => pg.escapeIdentifier(c)).join(', ')}` : ''}`;
}

/** Settings that make COPY's text the same on every server: UTC, ISO dates, exact floats. */
async function canonicalSession(client: pg.Client): Promise<void> {
  await client.query(`set timezone = 'UTC'; set datestyle = 'ISO, YMD'; set intervalstyle = 'postgres'; set extra_float_digits = 1; set bytea_output = 'hex'; set statement_timeout = 0`);
}

/** Streams the COPY text of `sql`, calling `line` for each row. */
async function copyLines(client: pg.Client, sql: string, line: (text: string) => void): Promise<void> {
  const stream = client.query(copyTo(`copy (${sql}) to stdout`)) as Readable;
  let rest = '';
  for await (const chunk of stream) {
    const text = rest + (chunk as Buffer).toString('utf8');
    const lines = text.split('\n');
    rest = lines.pop()!;
    for (const row of lines) line(row);
  }
  if (rest !== '') line(rest);
}

/**
 * Writes the archive of the database `connection` reaches to `file`: every table of one
 * snapshot, the token secret `secret` and each table's count and checksum. Returns the summary.
 */
export async function writeBackup(connection: pg.ClientConfig, secret: string, file: string, progress?: Progress): Promise<Record<string, TableSummary>> {
  const client = new pg.Client(connection);
  await client.connect();
  const gzip = createGzip({ level: 3 });
  const out = createWriteStream(file, { mode: 0o600 });
  const written = pipeline(gzip, out);
  let bytes = 0;
  const write = (text: string) => {
    bytes += Buffer.byteLength(text) + 1;
    return gzip.write(`${text}\n`);
  };
  const waitDrain = () => new Promise<void>((resolve) => gzip.once('drain', resolve));
  const summary: Record<string, TableSummary> = {};
  try {
    await canonicalSession(client);
    await client.query('begin isolation level repeatable read read only');
    const found = await tablesOf(client);
    const byName = new Map(found.map((table) => [table.name, table]));
    const tables = (await loadOrder(client, found.map((table) => table.name))).map((name) => byName.get(name)!);
    const { rows: [server] } = await client.query<{ version: string }>('show server_version');
    write(JSON.stringify({ format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, created_at: new Date().toISOString(), postgres: server!.version, secret, tables }));
    for (const table of tables) {
      write(JSON.stringify({ table: table.name, columns: table.columns }));
      const hash = createHash('sha256');
      let rows = 0;
      const stream = client.query(copyTo(`copy (${await selectFor(client, table)}) to stdout`)) as Readable;
      let rest = '';
      for await (const chunk of stream) {
        // Whole lines go to the hash and the archive in one piece per chunk: a write per row
        // would cost the zlib stream more than the copy itself.
        const text = rest + (chunk as Buffer).toString('utf8');
        const cut = text.lastIndexOf('\n') + 1;
        rest = text.slice(cut);
        if (cut === 0) continue;
        const whole = text.slice(0, cut);
        hash.update(whole);
        for (let at = whole.indexOf('\n'); at !== -1; at = whole.indexOf('\n', at + 1)) rows++;
        bytes += Buffer.byteLength(whole);
        if (!gzip.write(whole)) await waitDrain();
        progress?.(table.name, rows, bytes);
      }
      if (rest !== '') throw new Error(`COPY of ${table.name} ended inside a row`);
      write(END_OF_TABLE);
      summary[table.name] = { rows, sha256: hash.digest('hex') };
      progress?.(table.name, rows, bytes);
    }
    await client.query('commit');
    write(JSON.stringify({ end: true, tables: summary }));
    gzip.end();
    await written;
    return summary;
  } catch (error) {
    gzip.destroy();
    await written.catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** What {@link readHeader} finds at the start of an archive. */
export interface ArchiveHeader {
  format: string;
  version: number;
  created_at: string;
  postgres: string;
  secret: string;
  tables: ArchivedTable[];
}

/** The lines of the archive `file`, unzipped as they are read. */
function lines(file: string) {
  return createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity })[Symbol.asyncIterator]();
}

/** The header of the archive `file`; throws for a file that is not one. */
export async function readHeader(file: string): Promise<ArchiveHeader> {
  const reader = lines(file);
  try {
    const first = await reader.next();
    const header = first.done ? null : (JSON.parse(first.value) as ArchiveHeader);
    if (header?.format !== ARCHIVE_FORMAT || header.version !== ARCHIVE_VERSION) throw new Error(`${file} is not a Tessera backup (version ${ARCHIVE_VERSION})`);
    return header;
  } finally {
    await reader.return?.();
  }
}

/** Rows already in the target's tables of the archive (those that exist there), by table; empty tables left out. */
export async function rowsPresent(connection: pg.ClientConfig, tables: readonly string[]): Promise<Record<string, number>> {
  const client = new pg.Client(connection);
  await client.connect();
  try {
    const found: Record<string, number> = {};
    for (const table of tables) {
      const { rows } = await client.query<{ n: number }>(`select count(*)::int as n from ${quoteName(table)}`).catch(() => ({ rows: [{ n: 0 }] }));
      if (rows[0]!.n > 0) found[table] = rows[0]!.n;
    }
    return found;
  } finally {
    await client.end();
  }
}

/** Parents before children: the tables ordered so that every foreign key points at a table loaded earlier. */
async function loadOrder(client: pg.Client, tables: string[]): Promise<string[]> {
  const { rows } = await client.query<{ child: string; parent: string }>(
    `select cn.nspname || '.' || cc.relname as child, pn.nspname || '.' || pc.relname as parent
       from pg_constraint k
       join pg_class cc on cc.oid = k.conrelid join pg_namespace cn on cn.oid = cc.relnamespace
       join pg_class pc on pc.oid = k.confrelid join pg_namespace pn on pn.oid = pc.relnamespace
      where k.contype = 'f'`,
  );
  const ordered: string[] = [];
  const visit = (table: string, seen: Set<string>) => {
    if (ordered.includes(table) || seen.has(table)) return;
    seen.add(table);
    for (const edge of rows) if (edge.child === table && edge.parent !== table && tables.includes(edge.parent)) visit(edge.parent, seen);
    ordered.push(table);
  };
  for (const table of tables) visit(table, new Set());
  return ordered;
}

/** What {@link restoreBackup} did, per table: rows loaded and whether the reread rows match the archive's checksum. */
export type RestoreSummary = Record<string, { rows: number; verified: boolean | 'columns differ' }>;

/** A table loaded by a restore: its rows and the columns loaded (those the target also has). */
interface LoadedTable {
  rows: number;
  columns: string[];
}

/** One JSON line of the archive after its header: a table's start, or the trailer. */
interface SectionLine {
  table?: string;
  columns?: string[];
  end?: boolean;
  tables?: Record<string, TableSummary>;
}

/** The archive's tables that the target holds; throws when it lacks one of the world's (its migrations are behind). */
function restoreTargets(header: ArchiveHeader, present: ReadonlyMap<string, string[]>): string[] {
  const missing = header.tables.filter((table) => !present.has(table.name) && (table.name.startsWith('public.') || table.name.startsWith('game_private.')));
  if (missing.length > 0) throw new Error(`the target lacks ${missing.map((t) => t.name).join(', ')}: apply the same migrations first`);
  return header.tables.filter((table) => present.has(table.name)).map((table) => table.name);
}

/**
 * Turns the tables' own triggers off in the open transaction: `session_replication_role =
 * replica` where allowed, otherwise `disable trigger user` on the targets the role owns. Returns
 * the tables whose triggers are to be enabled again before the commit.
 */
async function suspendTriggers(client: pg.Client, targets: readonly string[]): Promise<string[]> {
  const replica = await client.query('savepoint replica; set local session_replication_role = replica').then(() => true, async () => {
    await client.query('rollback to savepoint replica');
    return false;
  });
  const owned = replica ? [] : (await client.query<{ name: string }>(
    `select n.nspname || '.' || c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where pg_has_role(c.relowner, 'USAGE') and n.nspname || '.' || c.relname = any($1)`, [targets])).rows.map((row) => row.name);
  for (const table of owned) await client.query(`alter table ${quoteName(table)} disable trigger user`);
  return owned;
}

/**
 * Streams one table's rows, up to its `\.` line, into COPY, keeping only the columns the target
 * has (`targetColumns`; undefined when it lacks the table: the rows are read and dropped).
 * `counter.bytes` counts the archive's row bytes read so far.
 */
async function copyTable(client: pg.Client, reader: AsyncIterator<string>, file: string, section: { table: string; columns: string[] }, targetColumns: string[] | undefined, counter: { bytes: number }, progress?: Progress): Promise<LoadedTable> {
  const { table } = section;
  const columns = targetColumns ? section.columns.filter((column) => targetColumns.includes(column)) : [];
  const keep = columns.length === section.columns.length ? null : columns.map((column) => section.columns.indexOf(column));
  const copy = targetColumns ? client.query(copyFrom(`copy ${quoteName(table)} (${columns.map((c) => pg.escapeIdentifier(c)).join(', ')}) from stdin`)) as Writable : null;
  const done = copy ? new Promise<void>((resolve, reject) => copy.once('finish', resolve).once('error', reject)) : Promise.resolve();
  let rows = 0;
  let batch: string[] = [];
  const flush = async () => {
    if (!copy || batch.length === 0) return;
    if (!copy.write(`${batch.join('\n')}\n`)) await new Promise((resolve) => copy.once('drain', resolve));
    batch = [];
  };
  for (;;) {
    const row = await reader.next();
    if (row.done) throw new Error(`${file} ends early inside ${table}`);
    if (row.value === END_OF_TABLE) break;
    counter.bytes += row.value.length + 1;
    rows++;
    if (keep) {
      const fields = row.value.split('\t');
      batch.push(keep.map((index) => fields[index]).join('\t'));
    } else batch.push(row.value);
    if (batch.length >= 1000) {
      await flush();
      progress?.(table, rows, counter.bytes);
    }
  }
  await flush();
  copy?.end();
  await done;
  progress?.(table, rows, counter.bytes);
  return { rows, columns };
}

/**
 * Loads every table of the archive `file` into the target, in the archive's order (parents
 * before children, so rows stream straight into COPY), and checks the trailer's row counts.
 */
async function loadTables(client: pg.Client, file: string, present: ReadonlyMap<string, string[]>, progress?: Progress): Promise<Map<string, LoadedTable>> {
  const loaded = new Map<string, LoadedTable>();
  const reader = lines(file);
  await reader.next();
  const counter = { bytes: 0 };
  for (;;) {
    const next = await reader.next();
    if (next.done) throw new Error(`${file} ends early: it was cut off while being written or copied`);
    const section = JSON.parse(next.value) as SectionLine;
    if (section.end) {
      for (const [table, summary] of Object.entries(section.tables!)) {
        const got = loaded.get(table);
        if (got && got.rows !== summary.rows) throw new Error(`${table}: ${got.rows} rows read, the archive says ${summary.rows}`);
      }
      break;
    }
    const table = section.table!;
    loaded.set(table, await copyTable(client, reader, file, { table, columns: section.columns! }, present.get(table), counter, progress));
  }
  await reader.return?.();
  return loaded;
}

/** Reads each restored table back and compares its checksum with the archive's trailer (`columns differ` when some were not loaded). */
async function verifyRestore(client: pg.Client, file: string, header: ArchiveHeader, loaded: ReadonlyMap<string, LoadedTable>, present: ReadonlyMap<string, string[]>): Promise<RestoreSummary> {
  const archived = new Map(header.tables.map((table) => [table.name, table]));
  const trailer = await trailerOf(file);
  const summary: RestoreSummary = {};
  for (const [table, got] of loaded) {
    if (!present.has(table)) continue;
    const whole = got.columns.length === archived.get(table)!.columns.length;
    summary[table] = { rows: got.rows, verified: whole ? (await checksum(client, archived.get(table)!)) === trailer[table]?.sha256 : 'columns differ' };
  }
  return summary;
}

/**
 * Loads the archive `file` into the database `connection` reaches, whose schema the migrations
 * made: in one transaction, with the tables' own triggers off (the rows were accepted when
 * written; a stamp or history trigger must not rewrite them): `session_replication_role =
 * replica` where allowed, otherwise `disable trigger user` on the tables the role owns (a hosted
 * project's owner). Parents come before children in the archive, so foreign keys hold as rows
 * arrive. With `replace`, the archive's tables are emptied first. Identity sequences move past the loaded
 * rows. Afterwards each table is read back and its checksum compared with the archive's.
 */
export async function restoreBackup(connection: pg.ClientConfig, file: string, options: { replace?: boolean; progress?: Progress } = {}): Promise<RestoreSummary> {
  const header = await readHeader(file);
  const client = new pg.Client(connection);
  await client.connect();
  try {
    await canonicalSession(client);
    const present = new Map((await tablesOf(client)).map((table) => [table.name, table.columns]));
    const targets = restoreTargets(header, present);
    await client.query('begin');
    const owned = await suspendTriggers(client, targets);
    // Children first; DELETE rather than TRUNCATE, which a hosted project's owner may not do on auth's tables.
    if (options.replace) for (const table of [...targets].reverse()) await client.query(`delete from ${quoteName(table)}`);
    const loaded = await loadTables(client, file, present, options.progress);
    for (const table of owned) await client.query(`alter table ${quoteName(table)} enable trigger user`);
    await client.query('commit');

    const queryable = { query: async <Row,>(sql: string, params?: unknown[]) => ({ rows: (await client.query(sql, params)).rows as Row[], fields: [] }), exec: async (sql: string) => void (await client.query(sql)) };
    for (const table of targets) await advanceSequences(queryable, table);
    return await verifyRestore(client, file, header, loaded, present);
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** The SHA-256 of a table's rows as the archive holds them, read from the database. */
async function checksum(client: pg.Client, table: ArchivedTable): Promise<string> {
  const hash = createHash('sha256');
  await copyLines(client, await selectFor(client, table), (row) => hash.update(row).update('\n'));
  return hash.digest('hex');
}

/** Each table's count and checksum from the database `connection` reaches, computed as a backup computes them. */
export async function tableChecksums(connection: pg.ClientConfig): Promise<Record<string, TableSummary>> {
  const client = new pg.Client(connection);
  await client.connect();
  try {
    await canonicalSession(client);
    await client.query('begin isolation level repeatable read read only');
    const result: Record<string, TableSummary> = {};
    for (const table of await tablesOf(client)) {
      const hash = createHash('sha256');
      let rows = 0;
      await copyLines(client, await selectFor(client, table), (row) => {
        rows++;
        hash.update(row).update('\n');
      });
      result[table.name] = { rows, sha256: hash.digest('hex') };
    }
    await client.query('commit');
    return result;
  } finally {
    await client.end();
  }
}

/** The archive's trailer: each table's count and checksum. */
export async function trailerOf(file: string): Promise<Record<string, TableSummary>> {
  let last = '';
  const reader = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of reader) last = line;
  const trailer = JSON.parse(last) as { end?: boolean; tables?: Record<string, TableSummary> };
  if (!trailer.end) throw new Error(`${file} has no end: it was cut off`);
  return trailer.tables!;
}
