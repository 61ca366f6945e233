import { composeGraceEnded, composeLinked, composePaymentDeclined, declinedPayments, endedGraces } from '../../core/patron-messages';
import { type Locale, fromDiscordLocale, translator } from '../../core/i18n';
import type { GuildContext, MemberState } from '../../core/planner/types';
import type { DirectMessages } from '../../edges/outbound/discord/direct-messages';
import { PATREON } from '../../edges/outbound/patreon/patreon-source';
import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type {
  DirectMessageKey,
  DirectMessageKind,
  DirectMessageRepository,
} from '../../edges/outbound/store/repositories/direct-message-repository';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { MemberPreferenceRepository } from '../../edges/outbound/store/repositories/member-preference-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';

export interface PatronMessagesDeps {
  /** `locale`: the server's language, for a patron whose own is not known. */
  guilds: Pick<GuildRepository, 'patronMessages' | 'linkMessages' | 'name' | 'locale'>;
  campaigns: Pick<CampaignRepository, 'get'>;
  /** The patron's own choice (`/privacy direct_messages`), and their language at their last command. */
  preferences: Pick<MemberPreferenceRepository, 'of' | 'localeOf'>;
  records: Pick<DirectMessageRepository, 'claim' | 'settle'>;
  messages: DirectMessages;
  clock: Clock;
  logger: Logger;
}

/** What came of one declined payment's message. */
export type DeclineMessageOutcome = 'sent' | 'refused' | 'failed' | 'server_off' | 'opted_out' | 'already';

export function createPatronMessages(deps: PatronMessagesDeps): PatronMessages {
  const { clock, logger } = deps;

  async function paymentDeclined(
    guildId: string,
    userId: string,
    decline: { campaignId: string; memberId: string; failedSince: Date; graceEndsAt: Date },
    kind: DirectMessageKind = 'payment_declined',
  ): Promise<DeclineMessageOutcome> {
    if (!(await deps.guilds.patronMessages(guildId))) return 'server_off';
    if (!(await deps.preferences.of(userId)).directMessages) return 'opted_out';
    const key: DirectMessageKey = {
      guildId,
      discordUserId: userId,
      kind,
      subject: `${decline.memberId}:${decline.failedSince.toISOString()}`,
    };
    if (!(await deps.records.claim(key, clock.now()))) return 'already';
    const [serverName, campaign, own] = await Promise.all([
      deps.guilds.name(guildId),
      deps.campaigns.get(decline.campaignId),
      deps.preferences.localeOf(userId),
    ]);
    const campaignName = campaign?.name ?? null;
    // In the patron's language (their Discord client's at their last command), else the server's.
    const t = translator(own ? fromDiscordLocale(own) : await deps.guilds.locale(guildId));
    const content =
      kind === 'grace_ended'
        ? composeGraceEnded({ serverName, campaignName }, t)
        : composePaymentDeclined({ serverName, campaignName, graceEndsAt: decline.graceEndsAt }, t);
    const sent = await deps.messages.send(userId, content);
    if (sent.ok) {
      await deps.records.settle(key, 'sent', null, clock.now());
      logger.info({ guildId, userId, kind }, 'told a patron of their declined payment');
      return 'sent';
    }
    await deps.records.settle(key, sent.error.kind, sent.error.message, clock.now());
    logger.warn(
      { guildId, userId, discordCode: sent.error.discordCode, error: sent.error.message },
      sent.error.kind === 'refused'
        ? 'a patron does not take direct messages from the bot: their declined payment was not told (not retried)'
        : 'the direct message of a declined payment could not be sent (not retried)',
    );
    return sent.error.kind;
  }

  /** Tells the member of each declined payment this server keeps roles for; resolves when done, never rejects. */
  async function tellDeclines(guild: GuildContext, userId: string, members: readonly MemberState[]): Promise<DeclineMessageOutcome[]> {
    const outcomes: DeclineMessageOutcome[] = [];
    const now = clock.now();
    const due = [
      ...declinedPayments(guild, members, now, PATREON).map((d) => ({ d, kind: 'payment_declined' as const })),
      ...endedGraces(guild, members, now, PATREON).map((d) => ({ d, kind: 'grace_ended' as const })),
    ];
    for (const { d: decline, kind } of due) {
      try {
        outcomes.push(await paymentDeclined(guild.guildId, userId, decline, kind));
      } catch (error) {
        logger.error({ err: error, guildId: guild.guildId, userId }, 'the direct message of a declined payment failed');
        outcomes.push('failed');
      }
    }
    return outcomes;
  }

  async function linked(guildId: string, userId: string, patreonUserId: string, locale: Locale): Promise<DeclineMessageOutcome> {
    if (!(await deps.guilds.linkMessages(guildId))) return 'server_off';
    if (!(await deps.preferences.of(userId)).directMessages) return 'opted_out';
    const key: DirectMessageKey = { guildId, discordUserId: userId, kind: 'linked', subject: patreonUserId };
    if (!(await deps.records.claim(key, clock.now()))) return 'already';
    const content = composeLinked(translator(locale), { serverName: await deps.guilds.name(guildId) });
    const sent = await deps.messages.send(userId, content);
    if (sent.ok) {
      await deps.records.settle(key, 'sent', null, clock.now());
      logger.info({ guildId, userId, kind: 'linked' }, 'told a patron their membership is linked');
      return 'sent';
    }
    await deps.records.settle(key, sent.error.kind, sent.error.message, clock.now());
    logger.warn(
      { guildId, userId, discordCode: sent.error.discordCode, error: sent.error.message },
      sent.error.kind === 'refused'
        ? 'a patron does not take direct messages from the bot: their new link was not told (not retried)'
        : 'the direct message of a new link could not be sent (not retried)',
    );
    return sent.error.kind;
  }

  const inFlight = new Set<Promise<unknown>>();

  return {
    paymentDeclined,
    tellDeclines,
    linked,

    afterLink(guildId: string, userId: string, patreonUserId: string, locale: Locale = 'en'): void {
      const task = linked(guildId, userId, patreonUserId, locale)
        .catch((error: unknown) => {
          logger.error({ err: error, guildId, userId }, 'the direct message of a new link failed');
          return 'failed' as const;
        })
        .finally(() => inFlight.delete(task));
      inFlight.add(task);
    },

    afterApply(guild: GuildContext, userId: string, members: readonly MemberState[]): void {
      if (!members.some((m) => m.standing === 'payment_failed')) return;
      const task = tellDeclines(guild, userId, members).finally(() => inFlight.delete(task));
      inFlight.add(task);
    },

    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}

/**
 * Direct messages that tell a patron in time (opt-in per server, `/settings patron_messages`; each
 * patron may opt out with `/privacy direct_messages`): when a payment is declined, and when its grace
 * period ends and the roles go, one message of each per decline (keyed by the membership and when its payment first failed, claimed in the database
 * before it is sent, so a redelivered webhook, the grace check, a restart or another instance sends
 * none again). A message Discord refuses (closed DMs, 50007) is recorded and never retried; no
 * message is ever retried. It is sent after the roles are applied and never holds them up
 * ({@link afterApply}).
 */
export interface PatronMessages {
  paymentDeclined(
    guildId: string,
    userId: string,
    decline: { campaignId: string; memberId: string; failedSince: Date; graceEndsAt: Date },
    kind?: DirectMessageKind,
  ): Promise<DeclineMessageOutcome>;
  tellDeclines(guild: GuildContext, userId: string, members: readonly MemberState[]): Promise<DeclineMessageOutcome[]>;
  /**
   * A patron's membership was just linked in a server that tells them (`link_messages`, off by
   * default): one message per server and Patreon account, ever (a relink of the same account sends
   * none), in the language the patron linked in.
   */
  linked(guildId: string, userId: string, patreonUserId: string, locale: Locale): Promise<DeclineMessageOutcome>;
  /** After a patron's link and its roles: starts {@link linked} without waiting for it; never throws. */
  afterLink(guildId: string, userId: string, patreonUserId: string, locale?: Locale): void;
  /**
   * After a member's roles are applied: starts {@link tellDeclines} without waiting for it (the
   * role change is done, and a message is never part of it). {@link settled} waits for what was started.
   */
  afterApply(guild: GuildContext, userId: string, members: readonly MemberState[]): void;
  /** Resolves when every message started so far has been sent or given up (tests, shutdown). */
  settled(): Promise<void>;
}
