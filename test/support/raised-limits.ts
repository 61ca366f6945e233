import type { DiscordSandboxOptions } from '@tierlink/sandbox/discord';
import type { MembershipServiceSandboxOptions } from '@tierlink/sandbox/membership-service';
import type { BudgetLimits, ServiceDialect } from '../../src/edges/outbound/patreon';

/**
 * The stand-ins start with the real services' limits (Discord: 50 requests a second, a server's
 * member-role bucket 10 per 10 s; Patreon: 100 requests a minute per token). A test whose claim is
 * not about those limits may raise them out of its way, and says why: these build the options,
 * each taking the reason.
 */

/** Discord's stand-in with the global limit and the member-role bucket out of the way (messages keep theirs). */
export function raisedDiscord(reason: string): Pick<DiscordSandboxOptions, 'rateLimits' | 'raisedLimits'> {
  return {
    rateLimits: { global: { limit: 10_000, windowMs: 1_000 }, routes: { 'member-role': { limit: 10_000, windowMs: 1_000 } } },
    raisedLimits: reason,
  };
}

/** Patreon's stand-in counting nothing. */
export function raisedPatreon(reason: string): Pick<MembershipServiceSandboxOptions, 'rateLimits' | 'raisedLimits'> {
  return { rateLimits: 'none', raisedLimits: reason };
}

/** Tierlink's own pacing to Patreon, off: for a stand-in raised with {@link raisedPatreon} (its reason says why). */
export const UNPACED_PATREON: Partial<Record<ServiceDialect, BudgetLimits | null>> = { spec: null, patreon: null };

/** Tierlink's own count of Discord's global limit, as high as {@link raisedDiscord}'s. */
export const RAISED_GLOBAL_PER_SECOND = 10_000;

/**
 * Tierlink's REST options beside a Discord stand-in: its count of the global limit raised with the
 * stand-in's (`reason` given, as to {@link raisedDiscord}), Discord's own 50 a second otherwise.
 */
export function tierlinkRestBeside(reason: string | undefined): { rest?: { globalRequestsPerSecond: number } } {
  return reason ? { rest: { globalRequestsPerSecond: RAISED_GLOBAL_PER_SECOND } } : {};
}
