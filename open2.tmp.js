const fs = require('fs');
const { Blob } = require('buffer');
const { openDatabase } = require('/work/main/dist/src/edges/outbound/store/database.js');
const { silentLogger } = require('/work/main/dist/src/shared/logger.js');
const { sql } = require('/work/main/node_modules/drizzle-orm');
(async () => {
  const file = process.argv[2];
  const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1e6; };
  const acc = { read: 0, open: 0, migrate: 0, close: 0 };
  for (let i = 0; i < 12; i++) {
    let t = cpu();
    const blob = new Blob([fs.readFileSync(file)]);
    let t2 = cpu(); if (i >= 2) acc.read += t2 - t; t = t2;
    const db = await openDatabase({ engine: 'pglite-memory', logger: silentLogger, from: blob });
    t2 = cpu(); if (i >= 2) acc.open += t2 - t; t = t2;
    await db.migrate();
    t2 = cpu(); if (i >= 2) acc.migrate += t2 - t; t = t2;
    await db.close();
    t2 = cpu(); if (i >= 2) acc.close += t2 - t; t = t2;
  }
  for (const k in acc) acc[k] = (acc[k] / 10).toFixed(3);
  console.log(file.slice(-10), acc);
})();
