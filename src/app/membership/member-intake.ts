import type { Metrics } from '../../edges/outbound/observability/metrics';
import type { CampaignRepository, TierInput } from '../../edges/outbound/store/repositories/campaign-repository';
import type { LinkRepository, SocialLinkCandidate } from '../../edges/outbound/store/repositories/link-repository';
import type {
  SnapshotInput,
  SnapshotRepository,
  SnapshotRow,
  UnreadableInput,
} from '../../edges/outbound/store/repositories/snapshot-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { Reconciler, ReconcileOptions } from '../sync/reconciler';

/** One member as a source read it (or as a delivery carried it), ready to store. */
export interface MemberRead {
  snapshot: SnapshotInput;
  /** The tiers the read names (stored with their role ids, so a new tier grants at once). */
  tiers?: readonly TierInput[];
  /** The Discord account on the person's profile (Patreon's `social_connections`), if any. */
  profileDiscordUserId?: string | null;
}

export interface MemberIntakeDeps {
  campaigns: Pick<CampaignRepository, 'upsertTiers'>;
  snapshots: Pick<SnapshotRepository, 'upsert' | 'upsertMany' | 'markUnreadable' | 'delete'>;
  links: Pick<LinkRepository, 'linkSocial' | 'linkSocialMany'>;
  reconciler: Pick<Reconciler, 'reconcileExternal'>;
  metrics: Pick<Metrics, 'unreadableMembers'>;
  clock: Clock;
  logger: Logger;
}

/** Where a member came in: for metrics and logs. */
type Via = SnapshotRow['readBy'] | 'link';

/**
 * The one way a member read from a source comes in, whatever triggered it (a webhook's re-read or
 * payload, a `/link` or a join, a page of the full sync): the tiers it names stored, its snapshot
 * stored, a link made from the Discord account on its profile, and (when asked) the linked Discord
 * user reconciled. Members the source answered with something unreadable are marked here too, and
 * logged once while they stay so.
 */
export class MemberIntake {
  readonly #deps: MemberIntakeDeps;

  constructor(deps: MemberIntakeDeps) {
    this.#deps = deps;
  }

  /**
   * Stores one member's read and links it from its profile; with `reconcile`, the linked Discord
   * user's roles follow at once. Answers the stored snapshot (a newer stored read is kept instead).
   */
  async record(read: MemberRead, reconcile?: ReconcileOptions): Promise<SnapshotRow> {
    const { snapshot } = read;
    const now = this.#deps.clock.now();
    // Neither write reads the other (a snapshot names its tiers by id): both are done before the
    // reconcile, in one round trip's time on PostgreSQL instead of two.
    const tiers = read.tiers && read.tiers.length > 0 ? this.#deps.campaigns.upsertTiers(snapshot.campaignId, read.tiers, now) : null;
    const [, stored] = await Promise.all([tiers, this.#deps.snapshots.upsert(snapshot, now)]);
    await this.linkFromProfile(snapshot.source, read.profileDiscordUserId ?? null, snapshot.externalUserId);
    if (reconcile) await this.reconcile(snapshot.source, snapshot.externalUserId, reconcile);
    return stored;
  }

  /**
   * A page of members at once (the full sync): one statement for the snapshots that changed and one
   * for the profile links not made yet; nothing is reconciled here (the guild pass plans everyone).
   * `stored`: whether a member may already be stored (the sync knows from its digests).
   */
  async recordPage(
    source: string,
    changed: readonly SnapshotInput[],
    candidates: readonly SocialLinkCandidate[],
    stored?: (s: SnapshotInput) => boolean,
  ): Promise<SocialLinkCandidate[]> {
    const now = this.#deps.clock.now();
    if (changed.length > 0) await this.#deps.snapshots.upsertMany(changed, now, stored);
    return candidates.length > 0 ? this.#deps.links.linkSocialMany(source, candidates, now) : [];
  }

  /** A member the source no longer knows: its snapshot goes, and the linked user's roles follow. */
  async forget(
    source: string,
    campaignId: string,
    memberId: string,
    externalUserId: string | null,
    reconcile: ReconcileOptions,
  ): Promise<void> {
    await this.#deps.snapshots.delete(source, campaignId, memberId);
    await this.reconcile(source, externalUserId, reconcile);
  }

  /**
   * Members the source answered with something Tierlink cannot read: counted, marked (their roles
   * stay exactly as they are), and logged once while they stay unreadable. Answers the members newly
   * marked. With `reconcile`, each one's linked user is reconciled (their roles hold still).
   */
  async markUnreadable(members: readonly UnreadableInput[], via: Via, reconcile?: ReconcileOptions): Promise<UnreadableInput[]> {
    if (members.length === 0) return [];
    this.#deps.metrics.unreadableMembers.inc({ source: via === 'link' ? 'link' : via === 'sync' ? 'sync' : 'webhook' }, members.length);
    const fresh = await this.#deps.snapshots.markUnreadable(members, this.#deps.clock.now());
    for (const m of fresh) {
      this.#deps.logger.warn(
        {
          source: m.source,
          campaignId: m.campaignId,
          memberId: m.memberId,
          externalUserId: m.externalUserId,
          attribute: m.attribute,
          reason: m.reason,
        },
        'a member could not be read; its roles stay as they are until it can',
      );
    }
    if (reconcile) for (const m of members) await this.reconcile(m.source, m.externalUserId, reconcile);
    return fresh;
  }

  /** Links a person from the Discord account on their profile, when neither side is linked yet. */
  async linkFromProfile(source: string, discordUserId: string | null, externalUserId: string | null): Promise<void> {
    if (discordUserId === null || externalUserId === null) return;
    if (await this.#deps.links.linkSocial(source, discordUserId, externalUserId, this.#deps.clock.now())) {
      this.#deps.logger.info({ source, externalUserId, discordUserId }, 'linked a member through the Discord account on their profile');
    }
  }

  async reconcile(source: string, externalUserId: string | null, options: ReconcileOptions): Promise<void> {
    if (externalUserId === null) return;
    await this.#deps.reconciler.reconcileExternal(source, externalUserId, options);
  }
}
