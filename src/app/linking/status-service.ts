import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { LedgerRepository } from '../../edges/outbound/store/repositories/ledger-repository';
import type { LinkEvent, LinkRepository } from '../../edges/outbound/store/repositories/link-repository';
import type { Entitlement, EntitlementKind } from '../../core/planner/types';
import { PATREON } from '../../edges/outbound/patreon/patreon-source';
import type { MemberOutcome, Reconciler } from '../sync/reconciler';

export interface StatusReport {
  linked: boolean;
  /** How the Patreon link was made: by the patron's sign-in (`oauth`) or from their profile (`social`). */
  method: 'oauth' | 'social' | null;
  /** Every source the member is linked on (`patreon`, `kofi`). */
  linkedSources: string[];
  /** Why there is no link, when it went away: moved to another account, or unlinked. */
  lastEvent: LinkEvent | null;
  /** The planner's view, computed as a dry run (nothing is changed by /status). */
  outcome: MemberOutcome;
  /** Per served campaign: its name and the member's entitlement with tier titles. */
  campaigns: Array<{ name: string; entitlement: Entitlement; tierTitles: string[] }>;
  /** Roles we granted (the ledger), by role id. */
  grantedRoleIds: string[];
  /** Titles of the served campaigns' tiers, by `<campaign id>/<tier id>`. */
  tierTitles: ReadonlyMap<string, string>;
}

export const tierKey = (campaignId: string, tierId: string) => `${campaignId}/${tierId}`;

const RANK: Record<EntitlementKind, number> = { active: 5, grace: 4, lapsed: 3, former: 2, follower: 1, none: 0 };

/** The most telling entitlement across campaigns (an active pledge anywhere beats a lapsed one). */
export function bestEntitlement(entitlements: readonly Entitlement[]): Entitlement | null {
  return [...entitlements].sort((a, b) => RANK[b.kind] - RANK[a.kind])[0] ?? null;
}

export function createStatusService(deps: {
  links: LinkRepository;
  ledger: LedgerRepository;
  campaigns: CampaignRepository;
  reconciler: Reconciler;
}): StatusService {
  return {
    async explain(guildId: string, discordUserId: string): Promise<StatusReport> {
      const [links, lastEvent, outcome, ledger] = await Promise.all([
        deps.links.linksOf(discordUserId),
        deps.links.lastEvent(discordUserId),
        deps.reconciler.reconcileMember(guildId, discordUserId, { trigger: 'sync', dryRun: true }),
        deps.ledger.forUser(guildId, discordUserId),
      ]);
      const tiers = await deps.campaigns.tiersOf(outcome.entitlements.map((e) => e.campaignId));
      const tierTitles = new Map(tiers.map((t) => [tierKey(t.campaignId, t.id), t.title]));
      const campaigns = await Promise.all(
        outcome.entitlements.map(async (entitlement) => {
          const campaign = await deps.campaigns.get(entitlement.campaignId);
          return {
            name: campaign?.name ?? `Campaign ${entitlement.campaignId}`,
            entitlement,
            tierTitles: entitlement.tierIds.map((id) => tierTitles.get(tierKey(entitlement.campaignId, id)) ?? id),
          };
        }),
      );
      const link = links.find((l) => l.source === PATREON) ?? links[0] ?? null;
      return {
        linked: link !== null,
        method: (link?.method as 'oauth' | 'social' | undefined) ?? null,
        linkedSources: links.map((l) => l.source),
        lastEvent: link ? null : lastEvent,
        outcome,
        campaigns,
        grantedRoleIds: ledger.map((l) => l.roleId),
        tierTitles,
      };
    },
  };
}

/** Explains a user's roles in a guild without changing anything. */
export interface StatusService {
  explain(guildId: string, discordUserId: string): Promise<StatusReport>;
}
