const fs = require('fs');
const { Blob } = require('buffer');
const { PGlite } = require('@electric-sql/pglite');
(async () => {
  const file = process.argv[2]; const mode = process.argv[3];
  const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1e6; };
  const wasmPath = require.resolve('@electric-sql/pglite').replace(/index\.cjs$/, 'pglite.wasm');
  const mod = mode !== 'plain' ? await WebAssembly.compile(fs.readFileSync(wasmPath)) : undefined;
  const bundle = mode === 'both' ? new Blob([fs.readFileSync(wasmPath.replace('pglite.wasm', 'pglite.data'))]) : undefined;
  const data = new Blob([fs.readFileSync(file)]);
  let sum = 0;
  for (let i = 0; i < 12; i++) {
    const t = cpu();
    const c = new PGlite({ postgresqlconf: ['shared_buffers = 16MB'], loadDataDir: data, ...(mod ? { pgliteWasmModule: mod } : {}), ...(bundle ? { fsBundle: bundle } : {}) });
    await c.waitReady; await c.query('select 1'); await c.close();
    if (i >= 2) sum += cpu() - t;
  }
  console.log(file.slice(-10), mode, (sum / 10).toFixed(3));
})();
