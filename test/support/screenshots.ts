import { mkdirSync } from 'node:fs';
import path from 'node:path';

/** Where the browser tests write their screenshots (ignored by git; docs/screenshots keeps the ones shown in the docs). */
export const SCREENSHOTS = path.resolve(__dirname, '../../screenshots');

/**
 * Screenshots are for a person to look at: they are written on a developer's machine, and not in
 * CI, where nobody sees them and each costs a full-page render (the checks read the page itself,
 * not the picture). `TIERLINK_SCREENSHOTS=1` writes them anywhere.
 */
export const screenshotsWanted = process.env.TIERLINK_SCREENSHOTS === '1' || process.env.CI !== 'true';

/** Something playwright can photograph: a page or one element of it. */
interface Photographable {
  screenshot(options: {
    path: string;
    fullPage?: boolean;
    clip?: { x: number; y: number; width: number; height: number };
    timeout?: number;
  }): Promise<unknown>;
}

/** Writes `screenshots/<name>` when screenshots are wanted (see {@link screenshotsWanted}). */
export async function shoot(
  target: Photographable,
  name: string,
  options: { fullPage?: boolean; clip?: { x: number; y: number; width: number; height: number }; timeout?: number } = {},
): Promise<void> {
  if (!screenshotsWanted) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await target.screenshot({ path: path.join(SCREENSHOTS, name), ...options });
}
