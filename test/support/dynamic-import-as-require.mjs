/**
 * A jest transform for PGlite's CommonJS build, which loads Node built-ins with `import("fs")`.
 * Jest can only run a dynamic `import()` under `node --experimental-vm-modules`, and on Node 20 that
 * flag keeps every test file's context alive to the end of the worker (each file's whole module
 * graph: a worker grew past 2 GB in one pass). Here each `import("<built-in>")` becomes a promise
 * of the built-in's namespace, so the suite runs without the flag.
 *
 * The file may declare a `var require` of its own (PGlite does, from `createRequire`), so the
 * module's require is taken under a name of ours before any of its code runs.
 */
import crypto from 'node:crypto';
import { builtinModules } from 'node:module';

const VERSION = '1';
const BUILT_INS = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
const DYNAMIC_IMPORT = /(?<![.\w$])import\((["'])([^"'\n]+)\1\)/g;

function rewrite(sourceText) {
  const code = sourceText.replace(DYNAMIC_IMPORT, (whole, _quote, name) =>
    BUILT_INS.has(name) ? `__tierlinkBuiltIn(${JSON.stringify(name)})` : whole,
  );
  if (code === sourceText) return { code };
  const prelude =
    'var __tierlinkBuiltIn = ((load) => (name) => Promise.resolve().then(() => { const m = load(name); return { ...m, default: m }; }))(require);';
  // One line: the source map's line numbers stay right.
  return { code: `${prelude}${code}` };
}

function getCacheKey(sourceText, sourcePath) {
  return crypto.createHash('sha256').update(VERSION).update('\0').update(sourcePath).update('\0').update(sourceText).digest('hex');
}

export default { process: rewrite, getCacheKey };
