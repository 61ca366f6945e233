import { randomBytes } from 'node:crypto';
import { needsConfirmation } from '../../core/bulk-changes';
import type { ChannelChange } from '../../core/guild-channels';
import type { RuleRole } from '../../core/planner/types';
import type { PendingChangeRepository } from '../../edges/outbound/store/repositories/pending-change-repository';
import { type Clock, MINUTE } from '../../shared/clock';
import type { ChangePreview } from '../sync/change-preview';
import type { Actor } from './actor-authority';
import type { SettingsRequest } from './settings-service';

/** A bulk change waits for its confirmation this long (turning strict mode on too). */
export const CHANGE_CONFIRMATION_MS = 5 * MINUTE;

/** What was asked, kept until it is confirmed: enough to ask again (every check is made again then). */
export type PendingChange =
  | { kind: 'map' | 'unmap'; tier: string; roleId: string }
  | { kind: 'settings'; request: SettingsRequest; channels: ChannelChange }
  | { kind: 'rule_set'; rule: RuleRole }
  | { kind: 'rule_remove'; roleId: string };

/** A change shown and waiting: the token the confirm button or form carries, and until when it counts. */
export interface Confirmation {
  token: string;
  expiresAt: Date;
}

/** Where a change is asked: Discord applies small changes at once (the server's threshold); the dashboard always asks. */
export interface ChangeAsk {
  /** Apply at once below this many role changes (0: always ask). */
  threshold: number;
  /** The change is being confirmed: the token and the preview it was confirmed on. */
  confirming?: { token: string; fingerprint: string };
}

/** What to do with a change, once its preview is known. */
export type Gate =
  | { kind: 'apply' }
  /** Show the preview and wait; `changedSince`: it was being confirmed, but the preview is no longer the one shown. */
  | { kind: 'ask'; confirmation: Confirmation; changedSince: boolean }
  /** The confirmation was used already (a second press): nothing more is done. */
  | { kind: 'used' };

export type Redeemed =
  | { kind: 'ok'; change: PendingChange; fingerprint: string }
  /** Past its time, used, cancelled, or never made. */
  | { kind: 'expired' }
  /** Made for someone else, or in another server. */
  | { kind: 'not_yours' };

const TOKEN = /^[A-Za-z0-9_-]{22}$/;

/**
 * Bulk changes shown before they are made (a mapping, a setting that moves roles): the generalised
 * form of strict mode's confirmation (src/app/admin/settings-service.ts). The change waits in the
 * database (any instance may get the button press), bound to the person and server that asked, for
 * {@link CHANGE_CONFIRMATION_MS}. Confirming asks the service again with the token: it reads the
 * person's authority afresh, previews again, and applies only if the preview is the one shown;
 * otherwise it shows the new one.
 */
export function createPendingChanges(deps: { store: Pick<PendingChangeRepository, 'add' | 'get' | 'take'>; clock: Clock }): PendingChanges {
  const { clock } = deps;

  async function issue(actor: Actor, change: PendingChange, fingerprint: string): Promise<Confirmation> {
    const now = clock.now();
    const token = randomBytes(16).toString('base64url');
    const expiresAt = new Date(now.getTime() + CHANGE_CONFIRMATION_MS);
    await deps.store.add({ id: token, guildId: actor.guildId, userId: actor.userId, change, fingerprint, expiresAt }, now);
    return { token, expiresAt };
  }

  async function redeem(actor: Actor, token: string): Promise<Redeemed> {
    if (!TOKEN.test(token)) return { kind: 'expired' };
    const row = await deps.store.get(token);
    if (!row) return { kind: 'expired' };
    if (row.guildId !== actor.guildId || row.userId !== actor.userId) return { kind: 'not_yours' };
    if (clock.now().getTime() > row.expiresAt.getTime()) {
      await deps.store.take(token);
      return { kind: 'expired' };
    }
    return { kind: 'ok', change: row.change as PendingChange, fingerprint: row.fingerprint };
  }

  return {
    issue,

    async gate(actor: Actor, change: PendingChange, preview: ChangePreview, ask: ChangeAsk): Promise<Gate> {
      if (ask.confirming) {
        if (!(await deps.store.take(ask.confirming.token))) return { kind: 'used' };
        if (preview.fingerprint === ask.confirming.fingerprint) return { kind: 'apply' };
        return { kind: 'ask', confirmation: await issue(actor, change, preview.fingerprint), changedSince: true };
      }
      if (!needsConfirmation(preview.changes, ask.threshold)) return { kind: 'apply' };
      return { kind: 'ask', confirmation: await issue(actor, change, preview.fingerprint), changedSince: false };
    },

    redeem,

    async cancel(actor: Actor, token: string): Promise<'cancelled' | 'expired' | 'not_yours'> {
      const redeemed = await redeem(actor, token);
      if (redeemed.kind !== 'ok') return redeemed.kind;
      return (await deps.store.take(token)) ? 'cancelled' : 'expired';
    },
  };
}

/** Bulk changes shown before they are made, waiting for the person who asked. */
export interface PendingChanges {
  issue(actor: Actor, change: PendingChange, fingerprint: string): Promise<Confirmation>;
  /** Whether `preview` may apply now, or waits for a confirmation (a new one when a confirmed preview moved). */
  gate(actor: Actor, change: PendingChange, preview: ChangePreview, ask: ChangeAsk): Promise<Gate>;
  /** The change a token stands for, if it is this person's, here, and still in time. Nothing is used up. */
  redeem(actor: Actor, token: string): Promise<Redeemed>;
  /** Cancels a change: only the person it was made for. */
  cancel(actor: Actor, token: string): Promise<'cancelled' | 'expired' | 'not_yours'>;
}
