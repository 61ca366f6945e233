const fs = require('fs');
const { Blob } = require('buffer');
const { openDatabase, dumpEmbeddedDatabase } = require('/work/main/dist/src/edges/outbound/store/database.js');
const { silentLogger } = require('/work/main/dist/src/shared/logger.js');
const { sql } = require('/work/main/node_modules/drizzle-orm');
(async () => {
  const db = await openDatabase({ engine: 'pglite-memory', logger: silentLogger, from: new Blob([fs.readFileSync(process.argv[2])]) });
  for (const s of ["update pg_database set datistemplate = false where datname in ('template0','template1')", 'drop database template0', 'drop database template1', 'checkpoint']) {
    try { await db.db.execute(sql.raw(s)); console.log('ok', s); } catch (e) { console.log('fail', s, e.message); }
  }
  const dump = await dumpEmbeddedDatabase(db);
  fs.writeFileSync(process.argv[3], Buffer.from(await dump.arrayBuffer()));
  await db.close();
})();
