import { and, eq } from 'drizzle-orm';
import type { Db } from '../database';
import { directMessages } from '../schema';

export type DirectMessageKind = 'payment_declined' | 'grace_ended' | 'linked';
/** `sent`; `refused`: Discord will not deliver it to this user (closed DMs); `failed`: another error, not retried either. */
export type DirectMessageOutcome = 'sent' | 'refused' | 'failed';

export interface DirectMessageKey {
  guildId: string;
  discordUserId: string;
  kind: DirectMessageKind;
  subject: string;
}

export function createDirectMessageRepository(db: Db): DirectMessageRepository {
  const where = (key: DirectMessageKey) =>
    and(
      eq(directMessages.guildId, key.guildId),
      eq(directMessages.discordUserId, key.discordUserId),
      eq(directMessages.kind, key.kind),
      eq(directMessages.subject, key.subject),
    );
  return {
    async claim(key: DirectMessageKey, now: Date): Promise<boolean> {
      const rows = await db
        .insert(directMessages)
        .values({ ...key, createdAt: now })
        .onConflictDoNothing()
        .returning({ id: directMessages.id });
      return rows.length > 0;
    },

    async settle(key: DirectMessageKey, outcome: DirectMessageOutcome, error: string | null, now: Date): Promise<void> {
      await db.update(directMessages).set({ status: outcome, lastError: error, settledAt: now }).where(where(key));
    },

    async ofMember(guildId: string, discordUserId: string) {
      return db
        .select({
          kind: directMessages.kind,
          subject: directMessages.subject,
          status: directMessages.status,
          lastError: directMessages.lastError,
        })
        .from(directMessages)
        .where(and(eq(directMessages.guildId, guildId), eq(directMessages.discordUserId, discordUserId)))
        .orderBy(directMessages.id);
    },
  };
}

/** The direct messages Tierlink sent or tried to send patrons: each one claimed once, for ever. */
export interface DirectMessageRepository {
  /**
   * Claims the message before it is sent: true for the one caller that wrote the row, false when it
   * was claimed before (by this process, another instance, or before a restart), whatever came of it.
   */
  claim(key: DirectMessageKey, now: Date): Promise<boolean>;
  settle(key: DirectMessageKey, outcome: DirectMessageOutcome, error: string | null, now: Date): Promise<void>;
  /** What was sent or tried for a user in a guild, oldest first. */
  ofMember(
    guildId: string,
    discordUserId: string,
  ): Promise<
    {
      kind: DirectMessageKind;
      subject: string;
      status: 'failed' | 'sent' | 'refused' | 'sending';
      lastError: string | null;
    }[]
  >;
}
