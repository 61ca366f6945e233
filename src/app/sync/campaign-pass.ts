import { type KeySet, hash52, keySetBuilder } from '../../core/hash52';
import { type CampaignSyncReport, UNREADABLE_LISTED } from '../../core/sync-report';
import { DiscordProblemError } from '../../edges/outbound/discord/discord-problem';
import type { UnreadableMember } from '../../edges/outbound/patreon';
import type { CreatorAccounts } from '../../edges/outbound/patreon/creator-accounts';
import { snapshotFromMember, toTierInput, unreadableInput } from '../../edges/outbound/patreon/member-records';
import { PATREON } from '../../edges/outbound/patreon/patreon-source';
import type { CampaignRepository, TierInput } from '../../edges/outbound/store/repositories/campaign-repository';
import type { LinkRepository, SocialLinkCandidate } from '../../edges/outbound/store/repositories/link-repository';
import { type SnapshotInput, type SnapshotRepository, readDigestKey } from '../../edges/outbound/store/repositories/snapshot-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { MemberIntake } from '../membership/member-intake';
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
  /**
   * Whether a stored snapshot is of a member the complete listing no longer holds (a real run has
   * deleted it; a dry run has not, and the guild pass must not plan from it).
   */
  departed(memberId: string, fetchedAt: Date): boolean;
}

/** Progress of a campaign's listing, after each page. */
export type CampaignProgress = (campaignId: string, report: CampaignSyncReport) => Promise<void>;

/** Members deleted per statement when a listing no longer holds them. */
const DELETE_CHUNK = 1000;

export interface CampaignPassDeps {
  campaigns: Pick<CampaignRepository, 'upsertTiers' | 'get'>;
  links: Pick<LinkRepository, 'byExternals' | 'byDiscordUsers' | 'unlinkedByChoice' | 'linkedDiscordUsers'>;
  snapshots: Pick<SnapshotRepository, 'digests' | 'deleteMembers'>;
  /** Where every read member comes in (src/app/membership/member-intake.ts). */
  intake: MemberIntake;
  accounts: Pick<CreatorAccounts, 'clientForCampaign'>;
  meter?: ApiMeter;
  clock: Clock;
  logger: Logger;
}

/** An error as a sentence, with the fix when the Discord port knows one. */
export function describeError(error: unknown): string {
  if (error instanceof DiscordProblemError) return `${error.problem.message} ${error.problem.fix}`;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function createCampaignPass(deps: CampaignPassDeps): CampaignPass {
  const { clock, logger } = deps;

  /** Dry run: the social links a real run would make (neither side linked yet), remembered in memory. */
  async function wouldLink(candidates: SocialLinkCandidate[], pending: Map<string, string>): Promise<number> {
    if (candidates.length === 0) return 0;
    const [byPatreon, byDiscord, optedOut] = await Promise.all([
      deps.links.byExternals(
        PATREON,
        candidates.map((c) => c.externalId),
      ),
      deps.links.byDiscordUsers(
        PATREON,
        candidates.map((c) => c.discordUserId),
      ),
      deps.links.unlinkedByChoice(candidates.map((c) => c.discordUserId)),
    ]);
    const taken = new Set([
      ...byPatreon.map((l) => `p:${l.externalId}`),
      ...byDiscord.map((l) => `d:${l.discordUserId}`),
      ...[...optedOut].map((id) => `d:${id}`),
    ]);
    const pendingPatreon = new Set(pending.values());
    let made = 0;
    for (const c of candidates) {
      if (taken.has(`p:${c.externalId}`) || taken.has(`d:${c.discordUserId}`)) continue;
      if (pending.has(c.discordUserId) || pendingPatreon.has(c.externalId)) continue;
      pending.set(c.discordUserId, c.externalId);
      pendingPatreon.add(c.externalId);
      made += 1;
    }
    return made;
  }

  /** The digest of every stored member of the campaign, by member key (see {@link hash52}); -1: none stored. */
  async function storedDigests(campaignId: string): Promise<KeySet> {
    const set = keySetBuilder();
    for await (const chunk of deps.snapshots.digests(PATREON, campaignId)) {
      for (const [memberId, digest] of chunk) set.add(hash52(memberId), digest === '' ? -1 : parseInt(digest, 16));
    }
    return set.build();
  }

  async function linkedUsers(): Promise<KeySet> {
    const set = keySetBuilder();
    for await (const chunk of deps.links.linkedDiscordUsers(PATREON)) for (const id of chunk) set.add(hash52(id), 0);
    return set.build();
  }

  /**
   * Deletes the snapshots of members the complete listing did not hold (a deletion the webhook
   * missed), unless written since the listing began. Only when some are missing does it read the
   * member ids again, to name them.
   */
  async function deleteDeparted(campaignId: string, seen: KeySet, staleBefore: Date): Promise<number> {
    if (seen.unmarked() === 0) return 0;
    let deleted = 0;
    let gone: string[] = [];
    for await (const chunk of deps.snapshots.digests(PATREON, campaignId)) {
      for (const [memberId] of chunk) {
        if (!seen.marked(hash52(memberId))) gone.push(memberId);
        if (gone.length === DELETE_CHUNK) {
          deleted += await deps.snapshots.deleteMembers(PATREON, campaignId, gone, staleBefore);
          gone = [];
        }
      }
    }
    deleted += await deps.snapshots.deleteMembers(PATREON, campaignId, gone, staleBefore);
    return deleted;
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
    await deps.intake.markUnreadable(
      members.map((m) => unreadableInput(m, campaignId, 'sync')),
      'sync',
    );
  }

  return {
    async read(
      campaignId: string,
      dryRun: boolean,
      pendingLinks: Map<string, string>,
      onProgress?: CampaignProgress,
    ): Promise<CampaignOutcome> {
      // A source with nothing to list (Ko-fi pushes payments) is planned from what it stored.
      const source = (await deps.campaigns.get(campaignId))?.source ?? PATREON;
      if (source !== PATREON) return this.stored(campaignId);
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
      let stored: KeySet | null = null;
      try {
        const client = await deps.accounts.clientForCampaign(campaignId);
        if (!client) throw new Error(`campaign ${campaignId} is not connected: run /connect`);
        stored = await storedDigests(campaignId);
        const linked = await linkedUsers();
        /** Links this run made (or, dry, would make): few, and not in `linked`. */
        const linkedNow = new Set<string>();
        for await (const page of client.listMembers(campaignId)) {
          report.pages += 1;
          report.members += page.members.length + page.unreadable.length;
          // One member's read at a time: an unchanged one (every one, on a nightly run) is garbage at once.
          const changed: SnapshotInput[] = [];
          for (const m of page.members) {
            const input = snapshotFromMember(m, 'sync');
            const k = hash52(input.memberId);
            stored.mark(k);
            const was = stored.value(k);
            if (was === undefined || was !== readDigestKey(input)) changed.push(input);
          }
          for (const m of page.unreadable) stored.mark(hash52(m.memberId));
          if (page.unreadable.length > 0) await unreadable(campaignId, page.unreadable, report);
          const candidates: SocialLinkCandidate[] = [];
          for (const m of page.members) {
            if (!m.discordUserId || linked.has(hash52(m.discordUserId)) || linkedNow.has(m.discordUserId)) continue;
            candidates.push({ discordUserId: m.discordUserId, externalId: m.userId });
          }
          if (dryRun) {
            // A dry run stores what it read (the guild pass plans from it) but makes no link.
            await deps.intake.recordPage(PATREON, changed, [], (input) => stored!.has(hash52(input.memberId)));
            report.linksMade += await wouldLink(candidates, pendingLinks);
          } else {
            const made = await deps.intake.recordPage(PATREON, changed, candidates, (input) => stored!.has(hash52(input.memberId)));
            report.linksMade += made.length;
            for (const l of made) linkedNow.add(l.discordUserId);
          }
          for (const tier of page.tiers) seenTiers.set(tier.id, toTierInput(tier));
          await onProgress?.(campaignId, report);
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
        if (report.complete && !dryRun && stored) report.staleSnapshotsDeleted = await deleteDeparted(campaignId, stored, staleBefore);
      } catch (error) {
        report.complete = false;
        report.error ??= `storing what was read of campaign ${campaignId} failed: ${describeError(error)}`;
        logger.error({ err: error, campaignId }, 'full sync: storing tiers or removing departed members failed');
      }
      report.apiCalls = callsBetween(before, deps.meter?.read() ?? null);
      const complete = report.complete;
      const seen = stored;
      return {
        report,
        staleBefore,
        departed: (memberId, fetchedAt) => {
          if (!complete || seen === null || fetchedAt >= staleBefore) return false;
          const k = hash52(memberId);
          return seen.has(k) && !seen.marked(k);
        },
      };
    },

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
        departed: () => false,
      };
    },
  };
}

/**
 * The campaign pass of the full sync: every member of a campaign, page by page, into snapshots,
 * `social_connections` into links, and the tiers the pages include into stored tiers (once at the
 * end). On a dry run the links that would be made are kept in `pendingLinks` instead. A read error
 * is a value in the report: the guild pass then removes no role in the campaign's servers.
 *
 * Lean: before the first page, the digest of every stored member is loaded (a few statements of
 * 20,000) into a {@link KeySet}, 17 bytes per member, and so are the linked Discord users. A page
 * then writes only the members whose read changed (one statement) and sends only the candidates
 * for a link not linked yet (none once linked): a sync right after a sync sends no statement per
 * page. Members the complete listing no longer holds are the unmarked keys at the end. Memory
 * grows with one page, and with the campaign and the links at 17 bytes each.
 */
export interface CampaignPass {
  /** Lists the campaign's members from the service and stores what it read. */
  read(campaignId: string, dryRun: boolean, pendingLinks: Map<string, string>, onProgress?: CampaignProgress): Promise<CampaignOutcome>;
  /** The campaign as stored: nothing is read, and no stored snapshot counts as departed. */
  stored(campaignId: string): CampaignOutcome;
}
