const fs = require('fs');
const { Blob } = require('buffer');
const { PGlite } = require('@electric-sql/pglite');
const { openDatabase, dumpEmbeddedDatabase } = require('/work/main/dist/src/edges/outbound/store/database.js');
const { silentLogger } = require('/work/main/dist/src/shared/logger.js');
const { sql } = require('/work/main/node_modules/drizzle-orm');
(async () => {
  const c = new PGlite({ postgresqlconf: ['shared_buffers = 16MB'], initDbStartParams: process.argv[3] ? [process.argv[3]] : undefined });
  await c.waitReady;
  console.log((await c.query('show wal_segment_size')).rows);
  const raw = await c.dumpDataDir('none'); await c.close();
  const db = await openDatabase({ engine: 'pglite-memory', logger: silentLogger, from: raw });
  await db.migrate();
  for (const s of ["update pg_database set datistemplate = false where datname in ('template0','template1')", 'drop database template0', 'drop database template1', 'checkpoint']) await db.db.execute(sql.raw(s));
  const dump = await dumpEmbeddedDatabase(db);
  fs.writeFileSync(process.argv[2], Buffer.from(await dump.arrayBuffer()));
  await db.close();
})();
