import type { GuildApplyOutcome } from '../sync';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { MappingRepository } from '../../edges/outbound/store/repositories/mapping-repository';
import type { Logger } from '../../shared/logger';
import { roleIdsForGuild } from '../../core/tier-roles';
import { type Actor, type ActorAuthority, NOT_A_MEMBER } from './actor-authority';
import type { TiersService } from './tiers-service';
import type { RoleAllowances } from './role-allowances';
import type { ChangePreview, ChangePreviewer } from '../sync/change-preview';
import type { ChangeAsk, Confirmation, PendingChanges } from './pending-changes';
import type { RefusalFacts } from '../../core/refusal-text';

/** Reconciles every member of a guild whose roles may be affected, and says how many changed. */
export type ReconcileGuild = (guildId: string, trigger: 'map' | 'settings') => Promise<GuildApplyOutcome>;

export type MapOutcome =
  /**
   * `allowed`: the role's dangerous permissions, which the owner or the administrator who mapped it
   * allowed by naming it (src/app/admin/role-allowances.ts); null for a role without any.
   */
  | {
      kind: 'done';
      tierTitle: string;
      roleName: string;
      changed: boolean;
      followUp: Promise<GuildApplyOutcome>;
      allowed?: string[] | null;
    }
  /** The change would move at least the threshold's number of roles: nothing is done until it is confirmed. */
  | {
      kind: 'preview';
      tierTitle: string;
      roleId: string;
      roleName: string;
      preview: ChangePreview;
      confirmation: Confirmation;
      /** It was being confirmed, but roles or settings moved since it was shown: this is what it would do now. */
      changedSince: boolean;
    }
  /** A confirmation pressed a second time: it was already used. */
  | { kind: 'used' }
  | { kind: 'unknown_tier' }
  /** The bot cannot manage the role (above it, managed, @everyone, deleted). */
  | { kind: 'role_refused'; message: string; fix: string; facts?: RefusalFacts }
  /** The person asking may not manage the role (at or above their highest role, a dangerous permission). */
  | { kind: 'not_allowed'; message: string; fix: string; facts?: RefusalFacts }
  /** `viaTier`: the role is the tier's own Discord role on the service (`chat_role_ids`), which only the service changes. */
  | { kind: 'not_mapped'; tierTitle: string; roleName: string; viaTier: boolean };

export function createMappingService(deps: {
  mappings: MappingRepository;
  guilds: Pick<GuildRepository, 'settings' | 'saveSettings' | 'bind' | 'previewThreshold'>;
  tiers: TiersService;
  authority: ActorAuthority;
  allowances: Pick<RoleAllowances, 'allowNamed' | 'forgetRole'>;
  reconcileGuild: ReconcileGuild;
  /** The dry run of a change, and the changes waiting for a confirmation. */
  previews: Pick<ChangePreviewer, 'preview'>;
  pending: Pick<PendingChanges, 'gate'>;
  logger: Logger;
}): MappingService {
  function inBackground(guildId: string): Promise<GuildApplyOutcome> {
    const run = deps.reconcileGuild(guildId, 'map');
    run.catch((error) => deps.logger.error({ err: error, guildId }, 'reconcile after a mapping change failed'));
    return run;
  }

  /**
   * Forgets `/map` rows whose role was deleted from the server: Discord's role picker cannot name a
   * deleted role, so `/unmap` could never remove them. Runs on the fresh roles the actor was read with.
   */
  async function forgetDeletedRoles(guildId: string, roles: ReadonlyArray<{ id: string }>): Promise<void> {
    const existing = new Set(roles.map((r) => r.id));
    for (const row of await deps.mappings.of(guildId)) {
      if (existing.has(row.roleId)) continue;
      await deps.mappings.remove(guildId, row);
      deps.logger.info({ guildId, roleId: row.roleId, tierId: row.tierId }, 'forgot the mapping of a deleted role');
    }
  }

  return {
    async forgetDeletedRole(guildId: string, roleId: string): Promise<void> {
      const rows = await deps.mappings.removeRole(guildId, roleId);
      await deps.allowances.forgetRole(guildId, roleId);
      const settings = await deps.guilds.settings(guildId);
      const cleared = { formerPatronRoleId: settings.formerPatronRoleId === roleId, followerRoleId: settings.followerRoleId === roleId };
      if (cleared.formerPatronRoleId || cleared.followerRoleId) {
        await deps.guilds.saveSettings(guildId, {
          ...settings,
          ...(cleared.formerPatronRoleId ? { formerPatronRoleId: null } : {}),
          ...(cleared.followerRoleId ? { followerRoleId: null } : {}),
        });
      }
      if (rows > 0 || cleared.formerPatronRoleId || cleared.followerRoleId) {
        deps.logger.info({ guildId, roleId, mappings: rows, ...cleared }, 'a deleted role was removed from the mappings and settings');
      }
    },

    /**
     * `ask`: where it is asked (the threshold below which it applies at once), or the confirmation it
     * comes with; absent: the server's own threshold (Discord's).
     */
    async map(actor: Actor, tierValue: string, roleId: string, ask?: ChangeAsk): Promise<MapOutcome> {
      const { guildId } = actor;
      const tier = await deps.tiers.resolve(guildId, tierValue);
      if (!tier) return { kind: 'unknown_tier' };
      const view = await deps.authority.read(actor, { fresh: true });
      if (!view) return { ...NOT_A_MEMBER };
      const decision = deps.authority.decide(view, roleId, { botMustManage: true });
      if (!decision.ok)
        return {
          kind: decision.kind === 'not_allowed' ? 'not_allowed' : 'role_refused',
          message: decision.message,
          fix: decision.fix,
          ...(decision.facts ? { facts: decision.facts } : {}),
        };
      const row = { campaignId: tier.campaignId, tierId: tier.id, roleId };
      const roleName = decision.role?.name ?? roleId;
      // A mapping that is there already changes nothing: answered at once, without a preview.
      const already = (await deps.mappings.of(guildId)).some(
        (m) => m.campaignId === row.campaignId && m.tierId === row.tierId && m.roleId === roleId,
      );
      // The owner or an administrator who maps a role with powerful permissions allows it by doing so
      // (below): the preview counts it as given.
      const allows = view.authority.isOwner || view.authority.isAdministrator;
      const preview = already
        ? null
        : await deps.previews.preview(guildId, (g) => {
            const roles = new Map(g.roles);
            const role = roles.get(roleId);
            if (allows && role?.heldBack) roles.set(roleId, { ...role, heldBack: null });
            return {
              ...g,
              roles,
              mappings: [...g.mappings, row],
              campaignIds: g.campaignIds.includes(row.campaignId) ? g.campaignIds : [...g.campaignIds, row.campaignId],
            };
          });
      const gate = !preview
        ? ({ kind: 'apply' } as const)
        : await deps.pending.gate(
            actor,
            { kind: 'map', tier: tierValue, roleId },
            preview,
            ask ?? { threshold: await deps.guilds.previewThreshold(guildId) },
          );
      if (gate.kind === 'used') return { kind: 'used' };
      if (gate.kind === 'ask' && preview)
        return {
          kind: 'preview',
          tierTitle: tier.title,
          roleId,
          roleName,
          preview,
          confirmation: gate.confirmation,
          changedSince: gate.changedSince,
        };
      await forgetDeletedRoles(guildId, view.snapshot.roles);
      // Only the owner or an administrator may map a role with dangerous permissions: naming it is their allowance.
      const allowed = await deps.allowances.allowNamed(view, roleId);
      // An open campaign (Ko-fi's page) is served by a server from its first mapping there.
      await deps.guilds.bind(guildId, tier.campaignId);
      const changed = await deps.mappings.add(guildId, row, actor.userId);
      if (changed) deps.logger.info({ guildId, userId: actor.userId, roleId, tierId: tier.id }, 'tier mapped to a role');
      return {
        kind: 'done',
        tierTitle: tier.title,
        roleName,
        changed,
        followUp: changed || allowed ? inBackground(guildId) : Promise.resolve({ kind: 'applied' as const, members: 0, changes: 0 }),
        allowed,
      };
    },

    async unmap(actor: Actor, tierValue: string, roleId: string, ask?: ChangeAsk): Promise<MapOutcome> {
      const { guildId } = actor;
      const tier = await deps.tiers.resolve(guildId, tierValue);
      if (!tier) return { kind: 'unknown_tier' };
      const view = await deps.authority.read(actor, { fresh: true });
      if (!view) return { ...NOT_A_MEMBER };
      const decision = deps.authority.decide(view, roleId, { botMustManage: false });
      if (!decision.ok) return { kind: 'not_allowed', message: decision.message, fix: decision.fix };
      const roleName = decision.role?.name ?? roleId;
      const row = { campaignId: tier.campaignId, tierId: tier.id, roleId };
      const same = (m: { campaignId: string; tierId: string; roleId: string }) =>
        m.campaignId === row.campaignId && m.tierId === row.tierId && m.roleId === roleId;
      const notMapped = (): MapOutcome => ({
        kind: 'not_mapped',
        tierTitle: tier.title,
        roleName,
        viaTier: roleIdsForGuild(tier.roleIds, guildId).includes(roleId),
      });
      if (!(await deps.mappings.of(guildId)).some(same)) return notMapped();
      const preview = await deps.previews.preview(guildId, (g) => ({ ...g, mappings: g.mappings.filter((m) => !same(m)) }));
      const gate = await deps.pending.gate(
        actor,
        { kind: 'unmap', tier: tierValue, roleId },
        preview,
        ask ?? { threshold: await deps.guilds.previewThreshold(guildId) },
      );
      if (gate.kind === 'used') return { kind: 'used' };
      if (gate.kind === 'ask')
        return {
          kind: 'preview',
          tierTitle: tier.title,
          roleId,
          roleName,
          preview,
          confirmation: gate.confirmation,
          changedSince: gate.changedSince,
        };
      await forgetDeletedRoles(guildId, view.snapshot.roles);
      const removed = await deps.mappings.remove(guildId, row);
      if (!removed) return notMapped();
      deps.logger.info({ guildId, userId: actor.userId, roleId, tierId: tier.id }, 'tier unmapped from a role');
      return { kind: 'done', tierTitle: tier.title, roleName, changed: true, followUp: inBackground(guildId) };
    },
  };
}

/**
 * `/map` and `/unmap`. The actor's authority over the role is read from Discord (src/core/authority.ts:
 * nobody makes the bot grant a role they could not grant themselves); a role the bot cannot manage is
 * refused up front with the fix (the bot would only ever fail to grant it); a change reconciles the
 * guild in the background, and `followUp` resolves with how many role changes it made.
 */
export interface MappingService {
  /**
   * A role was deleted in Discord: its `/map` rows go, and a former-patron or follower setting
   * that named it is cleared (the ledger rows of that role are forgotten by the next plan).
   */
  forgetDeletedRole(guildId: string, roleId: string): Promise<void>;
  /** `ask`: how the change is shown first (src/app/admin/pending-changes.ts); a change under its threshold applies at once. */
  map(actor: Actor, tierValue: string, roleId: string, ask?: ChangeAsk): Promise<MapOutcome>;
  /** Unmapping takes the role away from the tier's patrons: the same authority over it as mapping. */
  unmap(actor: Actor, tierValue: string, roleId: string, ask?: ChangeAsk): Promise<MapOutcome>;
}
