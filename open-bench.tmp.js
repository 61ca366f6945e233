const fs = require('fs');
const { Blob } = require('buffer');
const { openDatabase } = require('/work/main/dist/src/edges/outbound/store/database.js');
const { silentLogger } = require('/work/main/dist/src/shared/logger.js');
const { sql } = require('/work/main/node_modules/drizzle-orm');
(async () => {
  const file = process.argv[2]; const n = Number(process.argv[3] || 5);
  for (let i = 0; i < n; i++) {
    const c0 = process.cpuUsage(); const t0 = Date.now();
    const db = await openDatabase({ engine: 'pglite-memory', logger: silentLogger, from: new Blob([fs.readFileSync(file)]) });
    await db.migrate();
    const r = await db.db.execute(sql`select count(*) from links`);
    const c = process.cpuUsage(c0);
    console.log(file.slice(-20), 'cpu', ((c.user + c.system) / 1e6).toFixed(2), 'wall', (Date.now() - t0) / 1000);
    await db.close();
  }
})();
