import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The node flags `npm start` and `npm run sync` run Tierlink with: the memory the 100,000-member
 * sync is measured with in `npm run bench` (docs/benchmarks.md, docs/decisions.md §20). Dropping
 * `--no-liftoff` brings back 40–60 MB of PGlite's compiled code that varies run to run.
 */
const scripts = (JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { scripts: Record<string, string> })
  .scripts;
const flags = (script: string) => script.split(/\s+/).filter((w) => w.startsWith('--'));

test('npm start and npm run sync run node with the same flags: a 256 MB heap, a 2 MB young generation, PGlite compiled once optimised', () => {
  expect(flags(scripts.start!)).toEqual(['--max-old-space-size=256', '--max-semi-space-size=2', '--no-liftoff']);
  expect(flags(scripts.sync!)).toEqual(flags(scripts.start!));
  expect(scripts.start).toMatch(/^exec node .* dist\/src\/cli\/start\.js$/);
  expect(scripts.sync).toMatch(/^exec node .* dist\/src\/cli\/sync\.js$/);
});
