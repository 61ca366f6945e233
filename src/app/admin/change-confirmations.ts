import type { Actor } from './actor-authority';
import type { MapOutcome, MappingService } from './mapping-service';
import type { PendingChanges } from './pending-changes';
import type { SettingsOutcome, SettingsService } from './settings-service';
import type { RuleRoleOutcome, RuleRolesService } from './rule-roles-service';

/** What came of pressing Confirm on a change that was shown first. */
export type ChangeConfirmOutcome =
  | { kind: 'map' | 'unmap'; outcome: MapOutcome }
  | { kind: 'settings'; outcome: SettingsOutcome }
  /** A role by tenure or amount set (`rule_set`) or removed (`rule_remove`). */
  | { kind: 'rule_set' | 'rule_remove'; outcome: RuleRoleOutcome }
  /** Past its time, used already, or cancelled: nothing was changed. */
  | { kind: 'expired' }
  /** Made for someone else: nothing was changed. */
  | { kind: 'not_yours' };

/**
 * Confirm and Cancel for every change shown first (`/map`, `/unmap`, `/settings`, the dashboard's
 * forms): the change is asked again of its own service with the token, so every check is made again
 * (the person's authority, read fresh from Discord; the values), and it applies only when its new
 * preview is the one the person saw.
 */
export function createChangeConfirmations(deps: {
  pending: Pick<PendingChanges, 'redeem' | 'cancel'>;
  mapping: Pick<MappingService, 'map' | 'unmap'>;
  settings: Pick<SettingsService, 'apply'>;
  rules: Pick<RuleRolesService, 'set' | 'remove'>;
}): ChangeConfirmations {
  return {
    async confirm(actor: Actor, token: string): Promise<ChangeConfirmOutcome> {
      const redeemed = await deps.pending.redeem(actor, token);
      if (redeemed.kind !== 'ok') return redeemed;
      // The threshold does not matter here: a confirmed change applies or is shown again.
      const ask = { threshold: 0, confirming: { token, fingerprint: redeemed.fingerprint } };
      const { change } = redeemed;
      switch (change.kind) {
        case 'map':
        case 'unmap':
          return { kind: change.kind, outcome: await deps.mapping[change.kind](actor, change.tier, change.roleId, ask) };
        case 'settings':
          return { kind: 'settings', outcome: await deps.settings.apply(actor, change.request, change.channels, ask) };
        case 'rule_set':
          return { kind: 'rule_set', outcome: await deps.rules.set(actor, change.rule, ask) };
        case 'rule_remove':
          return { kind: 'rule_remove', outcome: await deps.rules.remove(actor, change.roleId, ask) };
      }
    },

    cancel: (actor: Actor, token: string) => deps.pending.cancel(actor, token),
  };
}

/** Confirm and Cancel of the changes shown first. */
export interface ChangeConfirmations {
  confirm(actor: Actor, token: string): Promise<ChangeConfirmOutcome>;
  cancel(actor: Actor, token: string): ReturnType<PendingChanges['cancel']>;
}
