import { type CampaignSyncReport, UNREADABLE_LISTED } from '../../core/sync-report';
import { DiscordProblemError } from '../../edges/discord/discord-problem';
import type { UnreadableMember } from '../../edges/patreon';
import type { CreatorAccounts } from '../../edges/patreon/creator-accounts';
import type { Metrics } from '../../edges/observability/metrics';
import type { CampaignRepository, TierInput } from '../../edges/store/repositories/campaign-repository';
import type { LinkRepository, SocialLinkCandidate } from '../../edges/store/repositories/link-repository';
import type { SnapshotRepository } from '../../edges/store/repositories/snapshot-repository';
import type { SyncRunRepository } from '../../edges/store/repositories/sync-run-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { snapshotFromMember, toTierInput, unreadableInput } from '../service-records';
import { type ApiMeter, callsBetween } from './api-meter';

/**
 * A snapshot counts as departed when it was last written this long before the complete listing
 * began. The margin covers a webhook that another instance, whose clock runs a little behind
 * ours, wrote over a snapshot while we listed; a member who really left goes on the next night.
 */
export const STALE_SNAPSHOT_MARGIN_MS = 5 * 60_000;

/** What the campaign pass leaves for the guild pass: compact, whatever the campaign's size. */
export interface CampaignOutcome {
  report: CampaignSyncReport;
  /** After a complete listing, a snapshot written before this is of a departed member (see {@link STALE_SNAPSHOT_MARGIN_MS}). */
  staleBefore: Date;
}

export interface CampaignPassDeps {
  campaigns: Pick<CampaignRepository, 'upsertTiers'>;
  links: Pick<LinkRepository, 'linkSocialMany' | 'byPatreonUsers' | 'byDiscordUsers' | 'unlinkedByChoice'>;
  snapshots: Pick<SnapshotRepository, 'upsertMany' | 'markUnreadable'>;
  syncRuns: Pick<SyncRunRepository, 'deleteStaleSnapshots'>;
  accounts: Pick<CreatorAccounts, 'clientForCampaign'>;
  meter?: ApiMeter;
  metrics: Pick<Metrics, 'unreadableMembers'>;
  clock: Clock;
  logger: Logger;
}

/** An error as a sentence, with the fix when the Discord port knows one. */
export function describeError(error: unknown): string {
  if (error instanceof DiscordProblemError) return `${error.problem.message} ${error.problem.fix}`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * The campaign pass of the full sync: every member of a campaign, page by page, into snapshots
 * (one statement per page), `social_connections` into links (two statements per page), and the
 * tiers the pages include into stored tiers (once at the end). On a dry run the links that would
 * be made are kept in `pendingLinks` instead. A read error is a value in the report: the guild
 * pass then removes no role in the campaign's servers.
 */
export function createCampaignPass(deps: CampaignPassDeps) {
  const { clock, logger } = deps;

  /** Dry run: the social links a real run would make (neither side linked yet), remembered in memory. */
  async function wouldLink(candidates: SocialLinkCandidate[], pending: Map<string, string>): Promise<number> {
    if (candidates.length === 0) return 0;
    const [byPatreon, byDiscord, optedOut] = await Promise.all([
      deps.links.byPatreonUsers(candidates.map((c) => c.patreonUserId)),
      deps.links.byDiscordUsers(candidates.map((c) => c.discordUserId)),
      deps.links.unlinkedByChoice(candidates.map((c) => c.discordUserId)),
    ]);
    const taken = new Set([
      ...byPatreon.map((l) => `p:${l.patreonUserId}`),
      ...byDiscord.map((l) => `d:${l.discordUserId}`),
      ...[...optedOut].map((id) => `d:${id}`),
    ]);
    const pendingPatreon = new Set(pending.values());
    let made = 0;
    for (const c of candidates) {
      if (taken.has(`p:${c.patreonUserId}`) || taken.has(`d:${c.discordUserId}`)) continue;
      if (pending.has(c.discordUserId) || pendingPatreon.has(c.patreonUserId)) continue;
      pending.set(c.discordUserId, c.patreonUserId);
      pendingPatreon.add(c.patreonUserId);
      made += 1;
    }
    return made;
  }

  /**
   * Members of a page the service answered with something unreadable: counted and listed in the
   * report, marked on their snapshots (which keeps their roles exactly as they are and keeps them
   * from counting as departed, as a dry run refreshes snapshots too), and logged once while they
   * stay unreadable.
   */
  async function unreadable(campaignId: string, members: readonly UnreadableMember[], report: CampaignSyncReport) {
    report.unreadable += members.length;
    for (const m of members) {
      if (report.unreadableMembers.length >= UNREADABLE_LISTED) break;
      report.unreadableMembers.push({ memberId: m.memberId, attribute: m.attribute, reason: m.reason });
    }
    deps.metrics.unreadableMembers.inc({ source: 'sync' }, members.length);
    const fresh = await deps.snapshots.markUnreadable(
      members.map((m) => unreadableInput(m, campaignId, 'sync')),
      clock.now(),
    );
    const freshIds = new Set(fresh.map((m) => m.memberId));
    for (const m of members) {
      if (!freshIds.has(m.memberId)) continue;
      logger.warn(
        { campaignId, memberId: m.memberId, patreonUserId: m.userId, attribute: m.attribute, reason: m.reason },
        'a member could not be read; its roles stay as they are until it can',
      );
    }
  }

  return {
    /** Lists the campaign's members from the service and stores what it read. */
    async read(campaignId: string, dryRun: boolean, pendingLinks: Map<string, string>): Promise<CampaignOutcome> {
      const before = deps.meter?.read() ?? null;
      const staleBefore = new Date(clock.now().getTime() - STALE_SNAPSHOT_MARGIN_MS);
      const report: CampaignSyncReport = {
        campaignId,
        complete: false,
        pages: 0,
        members: 0,
        linksMade: 0,
        staleSnapshotsDeleted: 0,
        unreadable: 0,
        unreadableMembers: [],
        error: null,
        apiCalls: {},
      };
      const seenTiers = new Map<string, TierInput>();
      try {
        const client = await deps.accounts.clientForCampaign(campaignId);
        if (!client) throw new Error(`campaign ${campaignId} is not connected: run /connect`);
        for await (const page of client.listMembers(campaignId)) {
          report.pages += 1;
          report.members += page.members.length + page.unreadable.length;
          await deps.snapshots.upsertMany(
            page.members.map((m) => snapshotFromMember(m, 'sync')),
            clock.now(),
          );
          if (page.unreadable.length > 0) await unreadable(campaignId, page.unreadable, report);
          const candidates: SocialLinkCandidate[] = [];
          for (const m of page.members) if (m.discordUserId) candidates.push({ discordUserId: m.discordUserId, patreonUserId: m.userId });
          report.linksMade += dryRun
            ? await wouldLink(candidates, pendingLinks)
            : (await deps.links.linkSocialMany(candidates, clock.now())).length;
          for (const tier of page.tiers) seenTiers.set(tier.id, toTierInput(tier));
        }
        report.complete = true;
      } catch (error) {
        report.error = `reading the members of campaign ${campaignId} failed after ${report.pages} ${report.pages === 1 ? 'page' : 'pages'}: ${describeError(error)}`;
        logger.error(
          { err: error, campaignId, pages: report.pages },
          'full sync: reading the campaign members failed; no role will be removed in its servers',
        );
      }
      try {
        await deps.campaigns.upsertTiers(campaignId, [...seenTiers.values()], clock.now());
        if (report.complete && !dryRun) report.staleSnapshotsDeleted = await deps.syncRuns.deleteStaleSnapshots(campaignId, staleBefore);
      } catch (error) {
        report.complete = false;
        report.error ??= `storing what was read of campaign ${campaignId} failed: ${describeError(error)}`;
        logger.error({ err: error, campaignId }, 'full sync: storing tiers or removing departed members failed');
      }
      report.apiCalls = callsBetween(before, deps.meter?.read() ?? null);
      return { report, staleBefore };
    },

    /** The campaign as stored: nothing is read, and no stored snapshot counts as departed. */
    stored(campaignId: string): CampaignOutcome {
      return {
        report: {
          campaignId,
          complete: true,
          pages: 0,
          members: 0,
          linksMade: 0,
          staleSnapshotsDeleted: 0,
          unreadable: 0,
          unreadableMembers: [],
          error: null,
          apiCalls: {},
        },
        staleBefore: new Date(0),
      };
    },
  };
}

export type CampaignPass = ReturnType<typeof createCampaignPass>;
