import { and, eq, gt, isNotNull, isNull, lt } from 'drizzle-orm';
import type { Db } from '../database';
import { linkTokens } from '../schema';

/**
 * One-time link tokens (hashed). Each step is one conditional UPDATE, so two browsers racing on
 * the same link or the same OAuth state cannot both win.
 */
export interface LinkTokenRepository {
  create(row: Pick<LinkTokenRow, 'tokenHash' | 'purpose' | 'discordUserId' | 'guildId' | 'createdAt' | 'expiresAt'>): Promise<void>;
  /**
   * Marks an unused, unexpired token of this purpose used and binds the OAuth state nonce and the
   * (sealed) PKCE verifier to it.
   */
  use(
    purpose: LinkTokenRow['purpose'],
    tokenHash: string,
    flow: { stateNonceHash: string; codeVerifier: string },
    now: Date,
  ): Promise<LinkTokenRow | null>;
  /** Consumes the state once, if it belongs to the token and the token was used after `usedAfter`. */
  consumeState(tokenHash: string, stateNonceHash: string, usedAfter: Date, now: Date): Promise<LinkTokenRow | null>;
  /** The campaign chooser of a consumed `/connect` state, acted on once: true for the one caller that wins. */
  useChoice(tokenHash: string, now: Date): Promise<LinkTokenRow | null>;
  /**
   * A join flow whose service state was consumed moves to its Discord step, once: the service user
   * the step will link, and the hash of the Discord state's nonce.
   */
  startDiscordStep(tokenHash: string, step: { externalId: string; stateNonceHash: string }): Promise<LinkTokenRow | null>;
  /** Consumes a join flow's Discord state once, if the service step ended after `stepAfter`. */
  consumeDiscordState(tokenHash: string, stateNonceHash: string, stepAfter: Date, now: Date): Promise<LinkTokenRow | null>;
  /** An unused, unexpired token of this purpose, without using it. */
  findLive(purpose: LinkTokenRow['purpose'], tokenHash: string, now: Date): Promise<LinkTokenRow | null>;
  /**
   * A join page's flow, written only when the service's consent comes back to the browser that
   * started it (until then it lives in that browser's sealed cookie): used and its state consumed
   * at once. Null when it was written before (a replayed callback).
   */
  createConsumedJoin(flow: {
    tokenHash: string;
    guildId: string;
    startedAt: Date;
    expiresAt: Date;
    stateNonceHash: string;
    now: Date;
  }): Promise<LinkTokenRow | null>;
  find(tokenHash: string): Promise<LinkTokenRow | null>;
  /** Drops tokens long past use, so the table does not grow forever. */
  prune(olderThan: Date): Promise<number>;
}
/** A one-time link from `/link`, `/connect` or a join page, stored by the SHA-256 of its token. */
export interface LinkTokenRow {
  tokenHash: string;
  purpose: 'link' | 'connect' | 'join';
  /** Who ran `/link` or `/connect`; null for a join page's flow, where Discord says who it is at the end. */
  discordUserId: string | null;
  guildId: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  /** The hash of the OAuth `state` nonce minted when the link is followed, bound to this row. */
  stateNonceHash: string | null;
  stateUsedAt: Date | null;
  /** The PKCE code verifier of the authorization request, sealed (secret-box); sent only at the code exchange. */
  codeVerifier: string | null;
  /** When the campaign chooser of a `/connect` flow was acted on: its tickets work once. */
  choiceUsedAt: Date | null;
  /** A join flow, once Patreon said who the patron is: the Patreon user to link at the Discord step. */
  externalId: string | null;
  /** A join flow's second state (toward Discord's consent page), hashed, consumed once like the first. */
  discordStateNonceHash: string | null;
  discordStateUsedAt: Date | null;
}

export function createLinkTokenRepository(db: Db): LinkTokenRepository {
  return {
    async create(
      row: Pick<LinkTokenRow, 'tokenHash' | 'purpose' | 'discordUserId' | 'guildId' | 'createdAt' | 'expiresAt'>,
    ): Promise<void> {
      await db.insert(linkTokens).values(row);
    },

    async use(
      purpose: LinkTokenRow['purpose'],
      tokenHash: string,
      flow: { stateNonceHash: string; codeVerifier: string },
      now: Date,
    ): Promise<LinkTokenRow | null> {
      const [row] = await db
        .update(linkTokens)
        .set({ usedAt: now, stateNonceHash: flow.stateNonceHash, codeVerifier: flow.codeVerifier })
        .where(
          and(
            eq(linkTokens.tokenHash, tokenHash),
            eq(linkTokens.purpose, purpose),
            isNull(linkTokens.usedAt),
            gt(linkTokens.expiresAt, now),
          ),
        )
        .returning();
      return row ?? null;
    },

    async consumeState(tokenHash: string, stateNonceHash: string, usedAfter: Date, now: Date): Promise<LinkTokenRow | null> {
      const [row] = await db
        .update(linkTokens)
        .set({ stateUsedAt: now })
        .where(
          and(
            eq(linkTokens.tokenHash, tokenHash),
            eq(linkTokens.stateNonceHash, stateNonceHash),
            isNull(linkTokens.stateUsedAt),
            gt(linkTokens.usedAt, usedAfter),
          ),
        )
        .returning();
      return row ?? null;
    },

    async useChoice(tokenHash: string, now: Date): Promise<LinkTokenRow | null> {
      const [row] = await db
        .update(linkTokens)
        .set({ choiceUsedAt: now })
        .where(
          and(
            eq(linkTokens.tokenHash, tokenHash),
            eq(linkTokens.purpose, 'connect'),
            isNotNull(linkTokens.stateUsedAt),
            isNull(linkTokens.choiceUsedAt),
          ),
        )
        .returning();
      return row ?? null;
    },

    async startDiscordStep(tokenHash: string, step: { externalId: string; stateNonceHash: string }): Promise<LinkTokenRow | null> {
      const [row] = await db
        .update(linkTokens)
        .set({ externalId: step.externalId, discordStateNonceHash: step.stateNonceHash })
        .where(
          and(
            eq(linkTokens.tokenHash, tokenHash),
            eq(linkTokens.purpose, 'join'),
            isNotNull(linkTokens.stateUsedAt),
            isNull(linkTokens.discordStateNonceHash),
          ),
        )
        .returning();
      return row ?? null;
    },

    async consumeDiscordState(tokenHash: string, stateNonceHash: string, stepAfter: Date, now: Date): Promise<LinkTokenRow | null> {
      const [row] = await db
        .update(linkTokens)
        .set({ discordStateUsedAt: now })
        .where(
          and(
            eq(linkTokens.tokenHash, tokenHash),
            eq(linkTokens.purpose, 'join'),
            eq(linkTokens.discordStateNonceHash, stateNonceHash),
            isNull(linkTokens.discordStateUsedAt),
            gt(linkTokens.stateUsedAt, stepAfter),
          ),
        )
        .returning();
      return row ?? null;
    },

    async findLive(purpose: LinkTokenRow['purpose'], tokenHash: string, now: Date): Promise<LinkTokenRow | null> {
      const [row] = await db
        .select()
        .from(linkTokens)
        .where(
          and(
            eq(linkTokens.tokenHash, tokenHash),
            eq(linkTokens.purpose, purpose),
            isNull(linkTokens.usedAt),
            gt(linkTokens.expiresAt, now),
          ),
        );
      return row ?? null;
    },

    async createConsumedJoin(flow: {
      tokenHash: string;
      guildId: string;
      startedAt: Date;
      expiresAt: Date;
      stateNonceHash: string;
      now: Date;
    }): Promise<LinkTokenRow | null> {
      const [row] = await db
        .insert(linkTokens)
        .values({
          tokenHash: flow.tokenHash,
          purpose: 'join',
          discordUserId: null,
          guildId: flow.guildId,
          createdAt: flow.startedAt,
          expiresAt: flow.expiresAt,
          usedAt: flow.startedAt,
          stateNonceHash: flow.stateNonceHash,
          stateUsedAt: flow.now,
        })
        .onConflictDoNothing()
        .returning();
      return row ?? null;
    },

    async find(tokenHash: string): Promise<LinkTokenRow | null> {
      const [row] = await db.select().from(linkTokens).where(eq(linkTokens.tokenHash, tokenHash));
      return row ?? null;
    },

    async prune(olderThan: Date): Promise<number> {
      const rows = await db.delete(linkTokens).where(lt(linkTokens.expiresAt, olderThan)).returning({ h: linkTokens.tokenHash });
      return rows.length;
    },
  };
}
