import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { LinkRepository } from '../../edges/outbound/store/repositories/link-repository';
import type { SnapshotRepository } from '../../edges/outbound/store/repositories/snapshot-repository';
import type { InboxRow, WebhookRepository } from '../../edges/outbound/store/repositories/webhook-repository';
import type { DeliveryParser } from '../webhooks/source-delivery';

/** Deliveries listed on the Syncs page, newest first. */
export const DELIVERIES_SHOWN = 50;

/** What a delivery said about its member, as far as roles go. */
export type DeliveredStanding = 'active_patron' | 'declined_patron' | 'former_patron' | 'no_pledge' | 'unreadable';

/** What a delivery was about. */
export type DeliveryAbout =
  | {
      kind: 'member';
      /** The member's name on Patreon, when the delivery carried it. */
      name: string | null;
      standing: DeliveredStanding;
      /** The titles of the tiers it entitles to (ids of tiers Tierlink has not seen yet). */
      tiers: string[];
      /** The Discord account linked to the member's Patreon account, if any. */
      discordUserId: string | null;
    }
  | { kind: 'post'; title: string | null }
  | { kind: 'other' };

/** Where a delivery stands in the queue. */
export type DeliveryState =
  | { kind: 'done'; at: Date | null }
  /** Not handled yet: `attempts` tries failed so far (0: not tried), the next at `nextAt`. */
  | { kind: 'waiting'; attempts: number; nextAt: Date; error: string | null }
  /** Given up after `attempts` tries: the nightly sync sets the member's roles instead. */
  | { kind: 'failed'; attempts: number; at: Date | null; error: string | null };

export interface DeliveryEntry {
  id: number;
  receivedAt: Date;
  /** Patreon's event name (`members:pledge:update`, `posts:publish`…), when it sent one. */
  event: string | null;
  about: DeliveryAbout;
  state: DeliveryState;
}

/**
 * Patreon's webhook deliveries of the campaigns a server is bound to, as the inbox holds them: when
 * each arrived, what it said, and whether it was handled. It answers "did Patreon tell Tierlink?"
 * without the logs. A delivery is read with the same parser the processor uses; one that does not
 * read is listed as such, never dropped.
 */
export interface DeliveryLog {
  recent(guildId: string): Promise<DeliveryEntry[]>;
}

export interface DeliveryLogDeps {
  webhooks: Pick<WebhookRepository, 'recentOf'>;
  guilds: Pick<GuildRepository, 'campaignsOf'>;
  campaigns: Pick<CampaignRepository, 'tiersOf'>;
  links: Pick<LinkRepository, 'byExternals'>;
  snapshots: Pick<SnapshotRepository, 'namesOf'>;
  parseDelivery: DeliveryParser;
}

function stateOf(row: InboxRow): DeliveryState {
  // As the queue recorded it, without the name of the error's class.
  const error = row.lastError === null ? null : row.lastError.replace(/^[A-Za-z]*Error: /, '');
  if (row.status === 'done') return { kind: 'done', at: row.finishedAt };
  if (row.status === 'dead') return { kind: 'failed', attempts: row.attempts, at: row.finishedAt, error };
  return { kind: 'waiting', attempts: row.attempts, nextAt: row.runAt, error };
}

/** A parsed delivery's subject, with what finding its name, tiers and link takes. */
interface Parsed {
  about: DeliveryAbout;
  member: { source: string; campaignId: string | null; memberId: string; externalUserId: string | null; tierIds: string[] } | null;
}

function parsed(row: InboxRow, parse: DeliveryParser): Parsed {
  let delivery;
  try {
    delivery = parse(row);
  } catch {
    return { about: { kind: 'other' }, member: null };
  }
  if (delivery.kind === 'post') return { about: { kind: 'post', title: delivery.post?.title ?? null }, member: null };
  if (delivery.kind !== 'member') return { about: { kind: 'other' }, member: null };
  const { source, campaignId, memberId, externalUserId, name, state } = delivery.member;
  const member = { source, campaignId, memberId, externalUserId, tierIds: [] as string[] };
  if (!state.ok) return { about: { kind: 'member', name, standing: 'unreadable', tiers: [], discordUserId: null }, member };
  const snapshot = state.value.read.snapshot;
  const standing: DeliveredStanding = snapshot.patronStatus ?? 'no_pledge';
  if (standing === 'active_patron' || standing === 'declined_patron') member.tierIds = snapshot.entitledTierIds;
  return { about: { kind: 'member', name, standing, tiers: [], discordUserId: null }, member };
}

/** One key per (source, id) pair. */
const keyOf = (...parts: string[]) => parts.join(':');

export function createDeliveryLog(deps: DeliveryLogDeps): DeliveryLog {
  return {
    async recent(guildId: string): Promise<DeliveryEntry[]> {
      const campaignIds = await deps.guilds.campaignsOf(guildId);
      const rows = await deps.webhooks.recentOf(campaignIds, DELIVERIES_SHOWN);
      if (rows.length === 0) return [];
      const read = rows.map((row) => parsed(row, deps.parseDelivery));
      const titles = new Map((await deps.campaigns.tiersOf(campaignIds)).map((tier) => [tier.id, tier.title]));
      // The names Tierlink read itself, and the links of the members named: one read per source each.
      const bySource = new Map<string, NonNullable<Parsed['member']>[]>();
      for (const { member } of read) {
        if (!member) continue;
        const ofSource = bySource.get(member.source);
        if (ofSource) ofSource.push(member);
        else bySource.set(member.source, [member]);
      }
      const names = new Map<string, string>();
      const linked = new Map<string, string>();
      for (const [source, members] of bySource) {
        const named = members.flatMap((m) => (m.campaignId ? [{ campaignId: m.campaignId, memberId: m.memberId }] : []));
        for (const [key, name] of await deps.snapshots.namesOf(source, named)) names.set(keyOf(source, key), name);
        const people = [...new Set(members.flatMap((m) => (m.externalUserId ? [m.externalUserId] : [])))];
        for (const link of await deps.links.byExternals(source, people)) linked.set(keyOf(source, link.externalId), link.discordUserId);
      }
      return rows.map((row, i) => {
        const { about, member } = read[i]!;
        const shown: DeliveryAbout =
          about.kind === 'member' && member
            ? {
                ...about,
                name: (member.campaignId ? names.get(keyOf(member.source, member.campaignId, member.memberId)) : undefined) ?? about.name,
                tiers: member.tierIds.map((id) => titles.get(id) ?? id),
                discordUserId: member.externalUserId ? (linked.get(keyOf(member.source, member.externalUserId)) ?? null) : null,
              }
            : about;
        return { id: row.id, receivedAt: row.receivedAt, event: row.trigger, about: shown, state: stateOf(row) };
      });
    },
  };
}
