import {
  type ComposedMessage,
  type WelcomeNames,
  type WelcomeWho,
  composePostAnnouncement,
  composeWelcome,
  welcomeWho,
} from '../../core/channel-posts';
import { translator } from '../../core/i18n';
import type { PostSourceFacts } from '../../core/post-source-text';
import type { MemberPreferenceRepository } from '../../edges/outbound/store/repositories/member-preference-repository';
import { MAX_POST_PAGES, type Post, type PostStretch } from '../../edges/outbound/patreon/posts';
import type { PatreonClient } from '../../edges/outbound/patreon';
import { isPatreonApiError } from '../../edges/outbound/patreon/errors';
import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { ChannelOutboxRepository } from '../../edges/outbound/store/repositories/channel-outbox-repository';
import { type RecentPledge, welcomeSubject } from '../../edges/outbound/store/repositories/channel-outbox-repository';
import type { CredentialRepository } from '../../edges/outbound/store/repositories/credential-repository';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { LinkRepository } from '../../edges/outbound/store/repositories/link-repository';
import type { WebhookRepository } from '../../edges/outbound/store/repositories/webhook-repository';
import type { Clock } from '../../shared/clock';
import { DAY, MINUTE } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { ChannelPoster } from './channel-poster';
import { nonceOf } from './channel-poster';
import { POSTS_SCOPE } from '../webhooks/registration';

type PostsReader = Pick<PatreonClient, 'listPosts'>;

/** Ko-fi's campaign id and source name (src/edges/outbound/kofi). */
const KOFI_CAMPAIGN = 'kofi';

/** Nothing older than this is announced, whenever Tierlink learns of it. */
export const ANNOUNCE_WINDOW_MS = 7 * DAY;
/** How often a campaign whose webhook carries no posts has its posts endpoint read. */
export const POST_POLL_INTERVAL_MS = 5 * MINUTE;
/** Welcomes one round writes per guild at most; the rest wait for the next round. */
const WELCOMES_PER_ROUND = 50;
const SENDS_PER_ROUND = 20;
const MAX_ATTEMPTS = 8;

/** Where a campaign's new posts come from, and why: what `/settings` and the poll go by. */
export type PostSource = (
  { kind: 'webhook'; detail: string } | { kind: 'poll'; detail: string } | { kind: 'none'; detail: string; fix: string }
) & { facts: PostSourceFacts };

export interface AnnouncementsDeps {
  /** `locale`: the server's language, which welcomes and post announcements are written in. */
  guilds: Pick<GuildRepository, 'campaignsOf' | 'guildsOf' | 'channels' | 'welcomeNames' | 'locale'>;
  /** Each person's own choice (`/privacy`): whether announcements may name them. */
  memberPreferences: Pick<MemberPreferenceRepository, 'of'>;
  /** The member's name in the server; null when they are not in it. */
  nameInServer(guildId: string, userId: string): Promise<string | null>;
  campaigns: Pick<CampaignRepository, 'get' | 'tiersOf'>;
  links: Pick<LinkRepository, 'byExternal'>;
  credentials: Pick<CredentialRepository, 'status'>;
  webhooks: Pick<WebhookRepository, 'forCampaign'>;
  outbox: Pick<
    ChannelOutboxRepository,
    | 'recentPledges'
    | 'addAnnouncement'
    | 'hasAnnouncement'
    | 'dueAnnouncements'
    | 'announced'
    | 'announcementFailed'
    | 'lastPostPoll'
    | 'notePostPoll'
  >;
  accounts: { clientForCampaign(campaignId: string): Promise<Pick<PatreonClient, 'getPost' | 'listPosts'> | null> };
  poster: ChannelPoster;
  /**
   * Ko-fi's first subscription payments (KOFI_VERIFICATION_TOKEN), welcomed in servers that take
   * Ko-fi into account: by their Discord account when linked, by name only when they paid publicly.
   */
  kofi?: { firstSubscriptionsSince(since: Date, limit: number): Promise<KofiFirstPayment[]> } | null;
  clock: Clock;
  logger: Logger;
}

/** A Ko-fi subscription's first payment, as the welcome needs it (src/edges/outbound/kofi/payment-store.ts). */
export interface KofiFirstPayment {
  messageId: string;
  email: string | null;
  fromName: string | null;
  tierName: string | null;
  isPublic: boolean;
}

const POLL_WHY = {
  no_webhook: 'the campaign has no webhook of Tierlink',
  webhook_no_posts: 'the campaign’s webhook does not carry posts yet',
  webhook_failing: 'the campaign’s webhook is paused or failing',
} as const;

const latest = (a: Date, b: Date) => (a.getTime() > b.getTime() ? a : b);

export function createAnnouncements(deps: AnnouncementsDeps): Announcements {
  const { outbox, clock, logger } = deps;

  async function tierTitles(campaignIds: readonly string[], tierIds: readonly string[]): Promise<string[]> {
    if (tierIds.length === 0) return [];
    const titles = new Map((await deps.campaigns.tiersOf(campaignIds)).map((t) => [t.id, t.title]));
    return tierIds.flatMap((id) => {
      const title = titles.get(id);
      return title ? [title] : [];
    });
  }

  /** Whom the welcome of a pledge names ({@link welcomeWho}): what it needs is read only as far as it may name them. */
  async function welcomeFor(guildId: string, policy: WelcomeNames, p: RecentPledge) {
    if (policy === 'none' || p.hidesPledges !== false || !p.externalUserId) return null;
    const link = await deps.links.byExternal(p.source, p.externalUserId);
    if (!link) return null;
    const [nameInServer, preferences] = await Promise.all([
      deps.nameInServer(guildId, link.discordUserId),
      deps.memberPreferences.of(link.discordUserId),
    ]);
    return welcomeWho(policy, {
      discordUserId: link.discordUserId,
      nameInServer,
      hidesPledges: p.hidesPledges,
      optedOut: !preferences.namedInAnnouncements,
    });
  }

  async function welcomeNewPatrons(guildId: string, channelId: string, since: Date): Promise<number> {
    const campaignIds = await deps.guilds.campaignsOf(guildId);
    const from = latest(since, new Date(clock.now().getTime() - ANNOUNCE_WINDOW_MS));
    const pledges = await outbox.recentPledges(guildId, campaignIds, from, WELCOMES_PER_ROUND);
    const policy: WelcomeNames = await deps.guilds.welcomeNames(guildId);
    const t = translator(await deps.guilds.locale(guildId));
    let written = 0;
    for (const p of pledges) {
      const who = await welcomeFor(guildId, policy, p);
      const message = composeWelcome({ who, tierTitles: await tierTitles([p.campaignId], p.entitledTierIds) }, t);
      const added = await outbox.addAnnouncement({
        guildId,
        kind: 'patron',
        subject: welcomeSubject(p.memberId, p.pledgeStart),
        channelId,
        message: message as Record<string, unknown>,
        now: clock.now(),
      });
      if (added) written += 1;
    }
    if (deps.kofi && campaignIds.includes(KOFI_CAMPAIGN)) {
      for (const p of await deps.kofi.firstSubscriptionsSince(from, WELCOMES_PER_ROUND)) {
        const link = p.email ? await deps.links.byExternal(KOFI_CAMPAIGN, p.email) : null;
        // The same rule as Patreon's welcomes: named only when linked, in the server, not opted out,
        // and paying publicly on Ko-fi (its is_public, as Patreon's hide_pledges); never by Ko-fi's name.
        let who: WelcomeWho = null;
        if (link && policy !== 'none') {
          const [nameInServer, preferences] = await Promise.all([
            deps.nameInServer(guildId, link.discordUserId),
            deps.memberPreferences.of(link.discordUserId),
          ]);
          who = welcomeWho(policy, {
            discordUserId: link.discordUserId,
            nameInServer,
            hidesPledges: !p.isPublic,
            optedOut: !preferences.namedInAnnouncements,
          });
        }
        const message = composeWelcome({ who, tierTitles: p.tierName ? [p.tierName] : [], sourceLabel: 'Ko-fi' }, t);
        const added = await outbox.addAnnouncement({
          guildId,
          kind: 'patron',
          subject: `kofi:${p.messageId}`,
          channelId,
          message: message as Record<string, unknown>,
          now: clock.now(),
        });
        if (added) written += 1;
      }
    }
    if (written > 0) logger.info({ guildId, welcomes: written }, 'new patrons to welcome');
    return written;
  }

  /** Writes the announcement of `post` for every guild of its campaign that announces posts and has not yet. */
  async function announcePost(campaignId: string, post: Post, seenAt: Date): Promise<number> {
    const published = post.publishedAt ? new Date(post.publishedAt) : seenAt;
    const campaign = await deps.campaigns.get(campaignId);
    let written = 0;
    for (const guildId of await deps.guilds.guildsOf(campaignId)) {
      const channels = await deps.guilds.channels(guildId);
      if (!channels.announcePostsChannelId || !channels.announcePostsSince) continue;
      const from = latest(channels.announcePostsSince, new Date(clock.now().getTime() - ANNOUNCE_WINDOW_MS));
      if (published.getTime() < from.getTime()) continue;
      const message: ComposedMessage = composePostAnnouncement(
        {
          title: post.title,
          url: post.url,
          isPublic: post.isPublic,
          tierTitles: await tierTitles([campaignId], post.tierIds),
          campaignName: campaign?.name ?? null,
        },
        translator(await deps.guilds.locale(guildId)),
      );
      const added = await outbox.addAnnouncement({
        guildId,
        kind: 'post',
        subject: `post:${post.id}`,
        channelId: channels.announcePostsChannelId,
        message: message as Record<string, unknown>,
        now: clock.now(),
      });
      if (added) {
        written += 1;
        logger.info({ guildId, campaignId, postId: post.id }, 'new post to announce');
      }
    }
    return written;
  }

  async function grantedPosts(campaignId: string): Promise<boolean> {
    const campaign = await deps.campaigns.get(campaignId);
    if (!campaign) return false;
    const status = await deps.credentials.status(campaign.creatorUserId);
    return (status?.scopes ?? '').split(' ').includes(POSTS_SCOPE);
  }

  /**
   * How Tierlink learns of the campaign's new posts. The stored webhook (as the service last
   * listed it) says whether deliveries carry `posts:publish`; the creator's stored scopes say
   * whether posts can be read at all (`campaigns.posts`: the service sends no post data, and
   * answers no posts request, beyond the scopes granted).
   */
  async function postSource(campaignId: string): Promise<PostSource> {
    if (!(await grantedPosts(campaignId))) {
      return {
        kind: 'none',
        detail: 'the creator’s Patreon connection does not allow reading posts (campaigns.posts)',
        fix: 'The creator runs /connect again and allows Tierlink to read the campaign’s posts.',
        facts: { code: 'no_scope' },
      };
    }
    const [webhook] = await deps.webhooks.forCampaign(campaignId);
    if (webhook && webhook.triggers.includes('posts:publish') && !webhook.paused && webhook.numConsecutiveTimesFailed === 0) {
      return { kind: 'webhook', detail: 'new posts arrive with the campaign’s webhook', facts: { code: 'webhook' } };
    }
    const why = !webhook ? 'no_webhook' : !webhook.triggers.includes('posts:publish') ? 'webhook_no_posts' : 'webhook_failing';
    const minutes = POST_POLL_INTERVAL_MS / MINUTE;
    return {
      kind: 'poll',
      detail: `${POLL_WHY[why]}, so Tierlink reads the campaign’s posts every ${minutes} minutes`,
      facts: { code: 'poll', why, minutes },
    };
  }

  async function pollPosts(campaignId: string): Promise<void> {
    const source = await postSource(campaignId);
    if (source.kind !== 'poll') return;
    const last = await outbox.lastPostPoll(campaignId);
    const now = clock.now();
    if (last && now.getTime() - last.at.getTime() < POST_POLL_INTERVAL_MS) return;
    const client = await deps.accounts.clientForCampaign(campaignId);
    if (!client) return;
    try {
      const { posts, resume } = await readNewPosts(client, campaignId, last?.resume ?? null);
      await outbox.notePostPoll(campaignId, now, { resume });
      for (const post of posts) {
        if (post.campaignId !== null && post.campaignId !== campaignId) continue;
        // A post without a publication date is not published (a draft, or taken down): nothing to announce.
        if (post.publishedAt === null) continue;
        await announcePost(campaignId, post, now);
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await outbox.notePostPoll(campaignId, now, { error: message });
      logger.warn({ campaignId, err: error }, 'reading the campaign’s posts failed; tried again at the next poll');
    }
  }

  /**
   * The posts a poll reads: the first page, where a list newest first puts a new post, and the
   * pages from where the last poll stopped, where a list oldest first puts it. Neither the spec nor
   * Patreon documents the order (docs/patreon-api-notes.md §2.6), so both ends are read: two
   * requests a poll once the list was read to its end, and at most {@link MAX_POST_PAGES} on the way
   * there. A cursor the service no longer takes starts the reading over from the second page.
   */
  async function readNewPosts(client: PostsReader, campaignId: string, resume: string | null): Promise<PostStretch> {
    if (resume === null) return client.listPosts(campaignId);
    const first = await client.listPosts(campaignId, { pages: 1 });
    if (first.resume === null) return first;
    try {
      const rest = await client.listPosts(campaignId, { from: resume, pages: MAX_POST_PAGES - 1 });
      return { posts: [...first.posts, ...rest.posts], resume: rest.resume };
    } catch (error) {
      if (!isPatreonApiError(error, 'bad_request')) throw error;
      logger.info({ campaignId }, 'the service no longer takes the posts cursor kept from the last poll; reading its posts from the start');
      return first;
    }
  }

  async function sendDue(): Promise<number> {
    const due = await outbox.dueAnnouncements(clock.now(), SENDS_PER_ROUND);
    let sent = 0;
    const pacedChannels = new Set<string>();
    for (const row of due) {
      if (pacedChannels.has(row.channelId)) continue;
      const outcome = await deps.poster.post(row.channelId, row.message as ComposedMessage, nonceOf('announce', row.id, row.subject));
      if (outcome.kind === 'posted') {
        await outbox.announced(row.id, outcome.messageId, clock.now());
        sent += 1;
      } else if (outcome.kind === 'paced') {
        pacedChannels.add(row.channelId);
      } else {
        const { failure } = outcome;
        const dead = failure.kind !== 'unavailable' || row.attempts + 1 >= MAX_ATTEMPTS;
        const backoff = Math.min(30 * MINUTE, 2 ** row.attempts * 5_000);
        await outbox.announcementFailed(row.id, `${failure.kind}: ${failure.message}`.slice(0, 500), {
          runAt: new Date(clock.now().getTime() + backoff),
          dead,
        });
        logger.warn(
          { guildId: row.guildId, channelId: row.channelId, kind: failure.kind, discordCode: failure.discordCode, dead },
          'an announcement could not be posted',
        );
      }
    }
    return sent;
  }

  /**
   * A post delivery (`posts:publish`, or a delivery of a post without a trigger). The post is read
   * again when the creator allowed it (nothing in the payload is trusted that a read can confirm);
   * otherwise the signed payload is what there is. A post the service no longer knows is not announced.
   */
  async function onPostDelivery(input: { campaignId: string; postId: string; payload: Post | null; receivedAt: Date }): Promise<void> {
    const guildIds = await deps.guilds.guildsOf(input.campaignId);
    let wanted = false;
    for (const guildId of guildIds) {
      // A post already announced in a server (a replayed or repeated delivery) costs no read there.
      if (
        (await deps.guilds.channels(guildId)).announcePostsChannelId &&
        !(await outbox.hasAnnouncement(guildId, `post:${input.postId}`))
      ) {
        wanted = true;
      }
    }
    if (!wanted) return;
    let post = input.payload;
    if (await grantedPosts(input.campaignId)) {
      const client = await deps.accounts.clientForCampaign(input.campaignId);
      post = client ? await client.getPost(input.postId) : post;
      if (post === null) {
        logger.info({ campaignId: input.campaignId, postId: input.postId }, 'the service no longer knows the post; not announced');
        return;
      }
    }
    if (!post) return;
    if (post.campaignId !== null && post.campaignId !== input.campaignId) {
      logger.warn({ campaignId: input.campaignId, postId: post.id }, 'a post delivery names another campaign; ignored');
      return;
    }
    await announcePost(input.campaignId, post, input.receivedAt);
  }

  async function postPollFailure(campaignId: string): Promise<{ at: Date; error: string } | null> {
    if ((await postSource(campaignId)).kind !== 'poll') return null;
    const last = await outbox.lastPostPoll(campaignId);
    return last?.error ? { at: last.at, error: last.error } : null;
  }

  return { welcomeNewPatrons, announcePost, pollPosts, postSource, postPollFailure, sendDue, onPostDelivery };
}

/**
 * Announcements, opt-in per guild: a welcome when a pledge begins and a message for each new
 * post. Each is written once per guild, kind and subject (a unique key in the database, so the
 * webhook, the poll and several instances never announce a thing twice), with its message
 * composed then; rounds post what is due, within the channel's rate limit.
 *
 * New patrons come from the stored member state, whatever wrote it (a `members:pledge:create`
 * webhook and its re-read, a link, the nightly sync): an entitled member whose current pledge began
 * after the channel was set, and at most {@link ANNOUNCE_WINDOW_MS} ago, is welcomed once per pledge.
 */
export interface Announcements {
  welcomeNewPatrons(guildId: string, channelId: string, since: Date): Promise<number>;
  announcePost(campaignId: string, post: Post, seenAt: Date): Promise<number>;
  pollPosts(campaignId: string): Promise<void>;
  postSource(campaignId: string): Promise<PostSource>;
  /** When the campaign's posts are polled and the last poll failed: when, and the error. */
  postPollFailure(campaignId: string): Promise<{ at: Date; error: string } | null>;
  sendDue(): Promise<number>;
  onPostDelivery(input: { campaignId: string; postId: string; payload: Post | null; receivedAt: Date }): Promise<void>;
}
