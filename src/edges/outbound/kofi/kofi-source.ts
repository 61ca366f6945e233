import type { EntitlementSource } from '../../../core/entitlement-source';
import type { MemberState } from '../../../core/planner/types';
import { KOFI } from './kofi-payment';
import { kofiStates } from './kofi-states';
import type { KofiPaymentStore } from './payment-store';

/**
 * Ko-fi as an entitlement source: it only pushes (a webhook per payment). Nothing to list, nothing
 * to read back, no sign-in for supporters, so its member states are computed from the payments
 * stored, through the supporters' links (Discord user → the email Ko-fi knows them by).
 */
export function createKofiSource(deps: { payments: Pick<KofiPaymentStore, 'ofSupporters' | 'donationSettings'> }): EntitlementSource {
  return {
    name: KOFI,
    label: 'Ko-fi',
    can: { list: false, read: false, push: true, signIn: false },
    async statesFor(discordUserIds, links) {
      const out = new Map<string, MemberState[]>();
      const emails = [...new Set(discordUserIds.flatMap((id) => links.get(id) ?? []))];
      if (emails.length === 0) return out;
      const [payments, settings] = await Promise.all([deps.payments.ofSupporters(emails), deps.payments.donationSettings()]);
      for (const discordUserId of discordUserIds) {
        const email = links.get(discordUserId);
        const paid = email === undefined ? undefined : payments.get(email);
        if (!paid || paid.length === 0) continue;
        const states = kofiStates(paid, settings);
        if (states.length > 0) out.set(discordUserId, states);
      }
      return out;
    },
  };
}
