import type { RuleRole } from '../../core/planner/types';
import type { RuleRoleRepository } from '../../edges/outbound/store/repositories/rule-role-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { GuildApplyOutcome } from '../sync';
import { type Actor, type ActorAuthority, NOT_A_MEMBER } from './actor-authority';
import type { ReconcileGuild } from './mapping-service';
import type { ChangePreview, ChangePreviewer } from '../sync/change-preview';
import type { ChangeAsk, Confirmation, PendingChange, PendingChanges } from './pending-changes';
import type { RefusalFacts } from '../../core/refusal-text';
import type { RoleRefusal } from '../../core/settings-problem-text';

/** Bounds of a rule: up to ten years of tenure, up to $10,000 a month. */
export const RULE_BOUNDS = { months: { min: 1, max: 120 }, cents: { min: 1, max: 1_000_000 } } as const;

export type RuleRoleOutcome =
  | { kind: 'done'; rules: RuleRole[]; changed: boolean; followUp: Promise<GuildApplyOutcome> | null }
  /** The change would move at least the threshold's number of roles: nothing is saved until it is confirmed. */
  | { kind: 'preview'; preview: ChangePreview; confirmation: Confirmation; changedSince: boolean }
  /** A confirmation pressed a second time: it was already used. */
  | { kind: 'used' }
  | { kind: 'invalid'; message: string; facts?: RuleFacts }
  | { kind: 'not_allowed'; message: string; fix: string; facts?: RefusalFacts };

/**
 * Why a rule was refused, for a reader of another language (`message` is the English): a threshold
 * out of its bounds (months, or cents a month), or a role the bot cannot give.
 */
export type RuleFacts =
  { code: 'tenure_bounds' | 'amount_bounds'; min: number; max: number } | { code: 'bot_cannot'; refusal: RoleRefusal };

export interface RuleRolesServiceDeps {
  rules: Pick<RuleRoleRepository, 'of' | 'set' | 'removeRole'>;
  authority: ActorAuthority;
  reconcileGuild: ReconcileGuild;
  /** The dry run of a change, the changes waiting for a confirmation, and the server's threshold (Discord's). */
  previews?: Pick<ChangePreviewer, 'preview'>;
  pending?: Pick<PendingChanges, 'gate'>;
  thresholdOf?: (guildId: string) => Promise<number>;
  clock: Clock;
  logger: Logger;
}

/**
 * The server's roles by tenure ("patrons of 6 months or more") and by amount ("anyone pledging at
 * least $20 a month, whatever the tier"), set with `/settings` and on the dashboard. A rule's role
 * needs the same authority as `/map`: the person setting or removing it could grant and remove the
 * role themselves, and Tierlink must be able to manage it. A change is applied guild-wide, like a
 * mapping; the planner decides who meets each rule (src/core/planner/rule-roles.ts).
 */
export class RuleRolesService {
  readonly #deps: RuleRolesServiceDeps;

  constructor(deps: RuleRolesServiceDeps) {
    this.#deps = deps;
  }

  list(guildId: string): Promise<RuleRole[]> {
    return this.#deps.rules.of(guildId);
  }

  /** Sets a rule (a role already given by a rule of the same kind gets the new threshold). */
  async set(actor: Actor, rule: RuleRole, ask?: ChangeAsk): Promise<RuleRoleOutcome> {
    const bounds = rule.kind === 'tenure' ? RULE_BOUNDS.months : RULE_BOUNDS.cents;
    const value = rule.kind === 'tenure' ? rule.months : rule.cents;
    if (!Number.isInteger(value) || value < bounds.min || value > bounds.max) {
      return {
        kind: 'invalid',
        facts: { code: rule.kind === 'tenure' ? 'tenure_bounds' : 'amount_bounds', min: bounds.min, max: bounds.max },
        message:
          rule.kind === 'tenure'
            ? `A tenure is a whole number of months from ${bounds.min} to ${bounds.max}, e.g. "6 months".`
            : `An amount is from ${(bounds.min / 100).toFixed(2)} to ${(bounds.max / 100).toLocaleString('en-US')} a month, e.g. "20".`,
      };
    }
    const refused = await this.#refusal(actor, rule.roleId, true);
    if (refused) return refused;
    const before = await this.#deps.rules.of(actor.guildId);
    const same = before.some((r) => r.kind === rule.kind && r.roleId === rule.roleId && JSON.stringify(r) === JSON.stringify(rule));
    if (!same) {
      const others = (rules: readonly RuleRole[]) => rules.filter((r) => !(r.kind === rule.kind && r.roleId === rule.roleId));
      const held = await this.#gate(actor, { kind: 'rule_set', rule }, (rules) => [...others(rules), rule], ask);
      if (held) return held;
    }
    if (!same) await this.#deps.rules.set(actor.guildId, rule, actor.userId, this.#deps.clock.now());
    this.#deps.logger.info({ guildId: actor.guildId, userId: actor.userId, rule }, 'rule role set');
    return {
      kind: 'done',
      rules: await this.#deps.rules.of(actor.guildId),
      changed: !same,
      followUp: same ? null : this.#apply(actor.guildId),
    };
  }

  /** Removes every rule that gives the role; those who got it from a rule lose it. */
  async remove(actor: Actor, roleId: string, ask?: ChangeAsk): Promise<RuleRoleOutcome> {
    const refused = await this.#refusal(actor, roleId, false);
    if (refused) return refused;
    if ((await this.#deps.rules.of(actor.guildId)).some((r) => r.roleId === roleId)) {
      const held = await this.#gate(actor, { kind: 'rule_remove', roleId }, (rules) => rules.filter((r) => r.roleId !== roleId), ask);
      if (held) return held;
    }
    const removed = await this.#deps.rules.removeRole(actor.guildId, roleId);
    if (removed > 0) this.#deps.logger.info({ guildId: actor.guildId, userId: actor.userId, roleId }, 'rule role removed');
    return {
      kind: 'done',
      rules: await this.#deps.rules.of(actor.guildId),
      changed: removed > 0,
      followUp: removed > 0 ? this.#apply(actor.guildId) : null,
    };
  }

  /** A rule change that moves roles is shown first from the threshold up (src/app/admin/pending-changes.ts); null: apply it. */
  async #gate(
    actor: Actor,
    change: PendingChange,
    alter: (rules: readonly RuleRole[]) => RuleRole[],
    ask: ChangeAsk | undefined,
  ): Promise<Extract<RuleRoleOutcome, { kind: 'preview' | 'used' }> | null> {
    const { previews, pending, thresholdOf } = this.#deps;
    if (!previews || !pending) return null;
    const preview = await previews.preview(actor.guildId, (g) => ({ ...g, ruleRoles: alter(g.ruleRoles ?? []) }));
    const gate = await pending.gate(actor, change, preview, ask ?? { threshold: thresholdOf ? await thresholdOf(actor.guildId) : 0 });
    if (gate.kind === 'used') return { kind: 'used' };
    if (gate.kind === 'ask') return { kind: 'preview', preview, confirmation: gate.confirmation, changedSince: gate.changedSince };
    return null;
  }

  async #refusal(
    actor: Actor,
    roleId: string,
    botMustManage: boolean,
  ): Promise<Extract<RuleRoleOutcome, { kind: 'not_allowed' | 'invalid' }> | null> {
    const view = await this.#deps.authority.read(actor, { fresh: true });
    if (!view) return { kind: 'not_allowed', message: NOT_A_MEMBER.message, fix: NOT_A_MEMBER.fix, facts: NOT_A_MEMBER.facts };
    const decision = this.#deps.authority.decide(view, roleId, { botMustManage });
    if (decision.ok) return null;
    return decision.kind === 'not_allowed'
      ? { kind: 'not_allowed', message: decision.message, fix: decision.fix, facts: decision.facts }
      : { kind: 'invalid', message: `${decision.message} **Fix:** ${decision.fix}`, facts: { code: 'bot_cannot', refusal: decision } };
  }

  #apply(guildId: string): Promise<GuildApplyOutcome> {
    const run = this.#deps.reconcileGuild(guildId, 'settings');
    run.catch((error) => this.#deps.logger.error({ err: error, guildId }, 'reconcile after a rule change failed'));
    return run;
  }
}
