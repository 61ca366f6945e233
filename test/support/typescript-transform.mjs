/**
 * The jest transform of the TypeScript sources: each file transpiled alone (`ts.transpileModule`,
 * as `isolatedModules` in tsconfig.base.json already requires), types being checked by `tsc`
 * (`npm run typecheck`), never here.
 *
 * Jest keeps its transform cache per project (a folder per lane) and its workers fill it at the same
 * time, so on a fresh machine, CI's, the same source files were compiled once per lane and per worker:
 * about 6 s of TypeScript for each worker's first file in each lane (docs/benchmarks.md). This
 * transform keeps one more cache of its own, in jest's cache folder and shared by every lane and
 * worker, keyed by the file, its text and the compiler and its options: a file is compiled once
 * per change, whichever lane needs it first.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

const VERSION = '1';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let compiler = null;
/** TypeScript and the project's compiler options, loaded on the first file not found in the cache. */
function load() {
  if (compiler) return compiler;
  const ts = require('typescript');
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!parsed) throw new Error('tsconfig.json could not be read');
  const options = {
    ...parsed.options,
    sourceMap: false,
    inlineSourceMap: true,
    inlineSources: true,
    declaration: false,
    composite: false,
    incremental: false,
  };
  delete options.outDir;
  delete options.tsBuildInfoFile;
  compiler = { ts, options };
  return compiler;
}

/** What every key depends on besides the file: this transform, the compiler's version and tsconfig's text. */
const SALT = crypto
  .createHash('sha256')
  .update(VERSION)
  .update(require('typescript/package.json').version)
  .update(fs.readFileSync(path.join(ROOT, 'tsconfig.json')))
  .update(fs.readFileSync(path.join(ROOT, 'tsconfig.base.json')))
  .digest('hex');

function getCacheKey(sourceText, sourcePath) {
  return crypto.createHash('sha256').update(SALT).update('\0').update(sourcePath).update('\0').update(sourceText).digest('hex');
}

const cachedFile = (cacheDirectory, key) => path.join(cacheDirectory, 'tierlink-typescript', key.slice(0, 2), `${key}.js`);

/** The file's JavaScript from the shared cache, compiled and stored there first when it is not in it. */
function compile(sourceText, sourcePath, cacheDirectory) {
  const file = cachedFile(cacheDirectory, getCacheKey(sourceText, sourcePath));
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    // Not compiled yet by any lane or worker.
  }
  const { ts, options: compilerOptions } = load();
  const { outputText } = ts.transpileModule(sourceText, { compilerOptions, fileName: sourcePath });
  // Written under another name, then renamed: a worker reading it at the same time never sees half.
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, outputText);
  fs.renameSync(temporary, file);
  return outputText;
}

function transform(sourceText, sourcePath, options) {
  return { code: compile(sourceText, sourcePath, options.config.cacheDirectory) };
}

export default { process: transform, getCacheKey };
