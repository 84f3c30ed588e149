/**
 * `npm run schema`: writes supabase/schema.sql, the schema in force after every migration in
 * supabase/migrations, dumped from a throwaway PostgreSQL cluster (scripts/schema-dump.ts).
 * test/server/db/schema-sql.test.ts fails while the committed file differs from a fresh dump.
 */
import { writeFile } from 'node:fs/promises';
import { dumpSchema, SCHEMA_FILE, withMigratedDatabase } from './schema-dump.js';

const text = await withMigratedDatabase('supabase/migrations', dumpSchema);
await writeFile(SCHEMA_FILE, text);
console.log(`wrote ${SCHEMA_FILE} (${text.length} characters)`);
