import type { Tone } from '../pages/layout';

/** One message for the next page after a change. */
export interface DashboardFlash {
  tone: Tone;
  text: string;
}
