import { randomInt } from 'node:crypto';
import type { JobQueue } from '../store/job-queue';
import type { Link, OauthLinkOutcome } from '../store/repositories/link-repository';
import type { Clock } from '../../../shared/clock';
import { DAY } from '../../../shared/clock';
import type { Logger } from '../../../shared/logger';
import { ANY_MEMBERSHIP_TIER, DONATION_TIER, KOFI, type KofiPayment, hashCode, parseKofiDelivery } from './kofi-payment';
import type { KofiPaymentStore, UnlinkedSupporter } from './payment-store';

/** The job that links a stored payment's supporter and plans their roles. */
export const KOFI_PAYMENT_JOB = 'kofi-payment';

/** How long a `/link` code for Ko-fi stays good, and how many a person may hold at once. */
export const LINK_CODE_TTL_MS = 30 * DAY;
export const MAX_OPEN_CODES = 3;

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** What a delivery to `POST /webhooks/kofi` gets: the status, and what happened (never the payment's content). */
export type KofiReceipt =
  | { status: 200; result: 'stored' | 'duplicate' }
  | { status: 400; result: 'no_data' | 'not_json' | 'invalid'; detail: string }
  | { status: 401; result: 'wrong_token' };

export interface KofiPaymentsDeps {
  verificationToken: string;
  store: KofiPaymentStore;
  links: {
    linkSocial(source: string, discordUserId: string, externalId: string, now: Date): Promise<boolean>;
    linkOauth(source: string, discordUserId: string, externalId: string, now: Date): Promise<OauthLinkOutcome>;
    byExternal(source: string, externalId: string): Promise<Link | null>;
  };
  /** Plans the roles of the Discord user linked to a supporter (src/app/sync/reconciler.ts). */
  reconcileExternal(source: string, externalId: string, options: { trigger: 'webhook' | 'link' }): Promise<unknown>;
  /** Plans a Discord user's roles everywhere (their Ko-fi link moved away from them). */
  reconcileUser(discordUserId: string, options: { trigger: 'relink' }): Promise<unknown>;
  jobs: Pick<JobQueue, 'enqueue' | 'register'>;
  /** Plans every member of a server again (after its donation setting changed). */
  applyGuild(guildId: string): Promise<unknown>;
  clock: Clock;
  logger: Logger;
}

export function createKofiPayments(deps: KofiPaymentsDeps): KofiPayments {
  const { store, clock, logger } = deps;

  async function process(messageId: string): Promise<void> {
    const payment = await store.get(messageId);
    if (!payment || payment.processedAt) return;
    const now = clock.now();
    await store.ensureCampaign(now);
    if (payment.kind === 'Subscription') {
      await store.seeTier(ANY_MEMBERSHIP_TIER, 'any Ko-fi membership', 0, now);
      if (payment.tierName) await store.seeTier(payment.tierName, payment.tierName, payment.amountCents, now);
    }
    if (payment.email) {
      await link(payment, payment.email, now);
      await deps.reconcileExternal(KOFI, payment.email, { trigger: 'webhook' });
    }
    await store.markProcessed(messageId, now);
  }

  async function link(payment: KofiPayment, email: string, now: Date): Promise<void> {
    if (payment.linkCodeHash) {
      const owner = await store.useLinkCode(payment.linkCodeHash, now);
      if (owner) {
        const outcome = await deps.links.linkOauth(KOFI, owner.discordUserId, email, now);
        logger.info({ source: KOFI, discordUserId: owner.discordUserId }, 'linked a Ko-fi supporter through the code in their payment');
        if (outcome.movedFrom) await deps.reconcileUser(outcome.movedFrom, { trigger: 'relink' });
        return;
      }
    }
    if (payment.discordUserId && (await deps.links.linkSocial(KOFI, payment.discordUserId, email, now))) {
      logger.info(
        { source: KOFI, discordUserId: payment.discordUserId },
        'linked a Ko-fi supporter through the Discord account on their payment',
      );
    }
  }

  deps.jobs.register(KOFI_PAYMENT_JOB, async (payload) => process(String(payload.messageId)));

  const enqueue = (messageId: string) =>
    deps.jobs.enqueue(KOFI_PAYMENT_JOB, { messageId }, { dedupeKey: `${KOFI_PAYMENT_JOB}:${messageId}` });

  return {
    process,

    async receive(data: unknown): Promise<KofiReceipt> {
      const now = clock.now();
      const parsed = parseKofiDelivery(data, deps.verificationToken, now);
      switch (parsed.kind) {
        case 'wrong_token':
          return { status: 401, result: 'wrong_token' };
        case 'no_data':
          return { status: 400, result: 'no_data', detail: 'The body has no form field "data".' };
        case 'not_json':
          return { status: 400, result: 'not_json', detail: 'The form field "data" is not a JSON object.' };
        case 'invalid':
          return { status: 400, result: 'invalid', detail: `The payment's ${parsed.field} is ${parsed.reason}.` };
      }
      const fresh = await store.insert(parsed.payment, now);
      const current = fresh ? null : await store.get(parsed.payment.messageId);
      if (fresh || (current && !current.processedAt)) await enqueue(parsed.payment.messageId);
      logger.info(
        { source: KOFI, messageId: parsed.payment.messageId, type: parsed.payment.kind, duplicate: !fresh },
        fresh ? 'Ko-fi payment stored' : 'Ko-fi payment delivered again: already stored',
      );
      return { status: 200, result: fresh ? 'stored' : 'duplicate' };
    },

    async start(): Promise<number> {
      const now = clock.now();
      await store.ensureCampaign(now);
      await store.seeTier(ANY_MEMBERSHIP_TIER, 'any Ko-fi membership', 0, now);
      await store.seeTier(DONATION_TIER, 'a Ko-fi donation', 0, now);
      const ids = await store.unprocessed(1000);
      for (const id of ids) await enqueue(id);
      if (ids.length > 0) logger.info({ payments: ids.length }, 'Ko-fi payments stored before a stop are processed now');
      return ids.length;
    },

    async linkCode(
      discordUserId: string,
      guildId: string,
    ): Promise<{ kind: 'code'; code: string; expiresAt: Date } | { kind: 'too_many' }> {
      const now = clock.now();
      if ((await store.openCodes(discordUserId, now)) >= MAX_OPEN_CODES) return { kind: 'too_many' };
      const body = Array.from({ length: 10 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
      const code = `TL-${body}`;
      const expiresAt = new Date(now.getTime() + LINK_CODE_TTL_MS);
      await store.saveLinkCode({ codeHash: hashCode(body), discordUserId, guildId, createdAt: now, expiresAt });
      return { kind: 'code', code, expiresAt };
    },

    unlinkedSince: store.unlinkedSince,
    firstSubscriptionsSince: store.firstSubscriptionsSince,
    pruneLinkCodes: (before: Date) => store.pruneLinkCodes(before),

    async donationSetting(guildId: string): Promise<{ minCents: number; days: number } | null> {
      return (await store.donationSettings()).find((d) => d.guildId === guildId) ?? null;
    },

    async setDonation(guildId: string, setting: { minCents: number; days: number } | null): Promise<unknown> {
      await store.saveDonationSetting(setting ? { guildId, ...setting } : { guildId, minCents: null }, clock.now());
      logger.info({ guildId, ...(setting ?? { off: true }) }, 'Ko-fi donation setting changed');
      return deps.applyGuild(guildId);
    },
  };
}

/**
 * Ko-fi's payments: a delivery is checked (the token, in constant time), stored once by its
 * `message_id`, and answered; a durable job then links its supporter (the Discord account the
 * payment names, or a `/link` code in its message) and plans their roles. See docs/kofi.md.
 */
export interface KofiPayments {
  process(messageId: string): Promise<void>;
  /** One delivery's form field `data`: refused, or stored (durably, once) and its processing queued, before the answer. */
  receive(data: unknown): Promise<KofiReceipt>;
  /**
   * At start-up: the Ko-fi page as a campaign with its own two tiers (any membership, a donation),
   * and the payments a stopped process stored but never processed queued again.
   */
  start(): Promise<number>;
  /**
   * A one-time code for `/link` with Ko-fi: the person puts it in the message of their next Ko-fi
   * payment, which links that payment's supporter to them. Stored hashed; at most
   * {@link MAX_OPEN_CODES} open at once per person.
   */
  linkCode(discordUserId: string, guildId: string): Promise<{ kind: 'code'; code: string; expiresAt: Date } | { kind: 'too_many' }>;
  unlinkedSince: (since: Date, limit: number) => Promise<UnlinkedSupporter[]>;
  firstSubscriptionsSince: (since: Date, limit: number) => Promise<KofiPayment[]>;
  /** Drops used or expired `/link` codes (the hourly housekeeping). */
  pruneLinkCodes(before: Date): Promise<number>;
  /** The server's donation setting, if any. */
  donationSetting(guildId: string): Promise<{ minCents: number; days: number } | null>;
  /**
   * Sets (or, with null, ends) the server's donation setting: a Ko-fi donation of at least
   * `minCents` entitles to `kofi:*donation` there for `days` days. Its members are planned again.
   */
  setDonation(guildId: string, setting: { minCents: number; days: number } | null): Promise<unknown>;
}
