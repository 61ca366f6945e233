import fs from 'node:fs';
import path from 'node:path';

/**
 * The folder holding our package.json. Code runs both from `src/` (tests) and `dist/src/` (built),
 * so files that ship beside the code (drizzle/ migrations) are found from here, not by a fixed `..`.
 */
export function packageRoot(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      const name = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name;
      if (name === 'tierlink') return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`package root of tierlink not found above ${from}`);
    dir = parent;
  }
}

/** The version in our package.json: the release this code is (CHANGELOG.md). */
export function packageVersion(root: string = packageRoot()): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: string };
  if (typeof manifest.version !== 'string') throw new Error(`no version in ${path.join(root, 'package.json')}`);
  return manifest.version;
}
