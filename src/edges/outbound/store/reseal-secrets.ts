import { and, eq } from 'drizzle-orm';
import type { Logger } from '../../../shared/logger';
import type { Db } from './database';
import { credentialSeal } from './repositories/credential-repository';
import { webhookSecretSeal } from './repositories/webhook-repository';
import { creatorCredentials, webhooks } from './schema';
import type { SecretBox } from './secret-box';

export interface ResealReport {
  /** Values sealed again: they were unbound (the old `v1` form) or sealed with SECRET_KEY_PREVIOUS. */
  resealed: number;
  /** Values neither key opens: left as they are (reconnect with /connect). */
  unreadable: number;
}

/**
 * The start-up step that brings every sealed value to the current form (src/edges/outbound/store/secret-box.ts):
 * bound to its row and column, sealed with SECRET_KEY. Values from before the binding and values
 * sealed with SECRET_KEY_PREVIOUS are opened and sealed again; each update names the old value, so a
 * row another instance changed meanwhile is left to it. Run on every start: once everything is
 * current it only reads.
 */
export async function resealSecrets(db: Db, box: SecretBox, logger: Logger): Promise<ResealReport> {
  const report: ResealReport = { resealed: 0, unreadable: 0 };

  const credentials = await db.select().from(creatorCredentials);
  for (const row of credentials) {
    if (box.isCurrent(row.accessTokenEnc) && box.isCurrent(row.refreshTokenEnc)) continue;
    const access = credentialSeal(row.creatorUserId, 'access_token_enc');
    const refresh = credentialSeal(row.creatorUserId, 'refresh_token_enc');
    let accessTokenEnc: string;
    let refreshTokenEnc: string;
    try {
      accessTokenEnc = box.encrypt(box.decrypt(row.accessTokenEnc, access), access);
      refreshTokenEnc = box.encrypt(box.decrypt(row.refreshTokenEnc, refresh), refresh);
    } catch (error) {
      report.unreadable += 1;
      logger.warn(
        { creatorUserId: row.creatorUserId, err: error },
        'a stored creator token opens with neither SECRET_KEY nor SECRET_KEY_PREVIOUS; run /connect again',
      );
      continue;
    }
    await db
      .update(creatorCredentials)
      .set({ accessTokenEnc, refreshTokenEnc })
      .where(
        and(
          eq(creatorCredentials.creatorUserId, row.creatorUserId),
          eq(creatorCredentials.accessTokenEnc, row.accessTokenEnc),
          eq(creatorCredentials.refreshTokenEnc, row.refreshTokenEnc),
        ),
      );
    report.resealed += 2;
  }

  const stored = await db.select({ id: webhooks.id, secretEnc: webhooks.secretEnc }).from(webhooks);
  for (const row of stored) {
    if (box.isCurrent(row.secretEnc)) continue;
    const place = webhookSecretSeal(row.id);
    let secretEnc: string;
    try {
      secretEnc = box.encrypt(box.decrypt(row.secretEnc, place), place);
    } catch (error) {
      report.unreadable += 1;
      logger.warn(
        { webhookId: row.id, err: error },
        'a stored webhook secret opens with neither SECRET_KEY nor SECRET_KEY_PREVIOUS; the next webhook check stores it again from Patreon',
      );
      continue;
    }
    await db
      .update(webhooks)
      .set({ secretEnc })
      .where(and(eq(webhooks.id, row.id), eq(webhooks.secretEnc, row.secretEnc)));
    report.resealed += 1;
  }

  if (report.resealed > 0) logger.info({ ...report }, 'stored secrets sealed again with the current SECRET_KEY, bound to their rows');
  return report;
}
