import type { EntitlementSource } from '../../core/entitlement-source';
import type { MemberState } from '../../core/planner/types';
import type { CompRepository, CompRow } from '../../edges/outbound/store/repositories/comp-repository';
import type { Clock } from '../../shared/clock';
import { DAY } from '../../shared/clock';

/** The source name comps are stored and granted under. */
export const COMP = 'comp';

/**
 * How long after its end a comp still reaches the planner: long enough for a removal to say "the
 * comp ended on …" rather than "not a member", and for a check that runs late to find it.
 */
const ENDED_VISIBLE_MS = 30 * DAY;

/** A comp as the planner's member state: entitled to its tier until its end, in its server only, no grace. */
export function compState(comp: CompRow): MemberState {
  return {
    source: COMP,
    campaignId: comp.campaignId,
    memberId: String(comp.id),
    readAt: comp.grantedAt,
    guildId: comp.guildId,
    standing: 'entitled',
    basis: 'comp',
    tierIds: [comp.tierId],
    failedSince: null,
    until: comp.until,
    graceAfterUntil: false,
    since: null,
    amount: null,
    isFollower: false,
    detail: `comp: ${comp.reason}`,
  };
}

/**
 * Comps as an entitlement source: written by the server's staff in Tierlink (`/comp`, the
 * dashboard), so nothing to list, read, push or sign in to. A comp names the Discord user, so it
 * needs no link, and it holds in the one server that gave it.
 */
export function createCompSource(deps: { comps: Pick<CompRepository, 'ofUsers'>; clock: Clock }): EntitlementSource {
  return {
    name: COMP,
    label: 'comp',
    can: { list: false, read: false, push: false, signIn: false },
    async statesFor(discordUserIds) {
      const out = new Map<string, MemberState[]>();
      const since = new Date(deps.clock.now().getTime() - ENDED_VISIBLE_MS);
      for (const comp of await deps.comps.ofUsers(discordUserIds, since)) {
        out.set(comp.discordUserId, [...(out.get(comp.discordUserId) ?? []), compState(comp)]);
      }
      return out;
    },
  };
}
