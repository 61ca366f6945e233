/**
 * When a configuration change that moves roles (a mapping, a setting) is shown first and waits for
 * a confirmation, and when it applies at once.
 */

/** In Discord, a change of fewer role changes than this applies at once (`/settings preview_threshold:`). */
export const DEFAULT_PREVIEW_THRESHOLD = 10;

/** The bounds of `/settings preview_threshold:` (0: always ask). */
export const PREVIEW_THRESHOLD_BOUNDS = { min: 0, max: 10_000 } as const;

/** The dashboard always asks: a page has room to show what a change does before it does it. */
export const DASHBOARD_PREVIEW_THRESHOLD = 0;

/** A change waits for a confirmation from `threshold` role changes up (0: always). */
export function needsConfirmation(changes: number, threshold: number): boolean {
  return changes >= threshold;
}
