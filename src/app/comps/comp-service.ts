import { tierRoles } from '../../core/planner';
import type { CompRepository, CompRow } from '../../edges/outbound/store/repositories/comp-repository';
import type { Clock } from '../../shared/clock';
import { DAY } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { type Actor, type ActorAuthority, NOT_A_MEMBER } from '../admin/actor-authority';
import type { TiersService } from '../admin/tiers-service';
import type { GuildContextLoader } from '../sync/guild-context';
import type { MemberOutcome, Reconciler } from '../sync/reconciler';
import type { CompInputFacts } from '../../core/comp-input-text';
import type { RefusalFacts } from '../../core/refusal-text';

/** The longest a comp may run: a comp is for a while, not forever. */
export const MAX_COMP_DAYS = 5 * 366;
/** The longest reason a comp keeps. */
export const COMP_REASON_MAX = 200;

export type CompRefusal =
  | { kind: 'unknown_tier' }
  | { kind: 'bad_until'; message: string; facts: CompInputFacts }
  | { kind: 'bad_reason'; message: string; facts: CompInputFacts }
  | { kind: 'not_allowed'; message: string; fix: string; facts?: RefusalFacts };

export type CompGrantOutcome =
  { kind: 'granted'; comp: CompRow; tierTitle: string; roleNames: string[]; outcome: MemberOutcome } | CompRefusal;

export type CompRevokeOutcome =
  | { kind: 'revoked'; comp: CompRow; tierTitle: string; outcome: MemberOutcome }
  | { kind: 'none'; tierTitle: string }
  | Exclude<CompRefusal, { kind: 'bad_until' | 'bad_reason' }>;

/** A comp as `/comp list` and the dashboard show it. */
export interface CompEntry {
  comp: CompRow;
  tierTitle: string;
}

/**
 * `until` as a creator types it: an ISO 8601 date (the comp runs through that day, UTC) or date-time.
 * It must be in the future and at most {@link MAX_COMP_DAYS} away.
 */
export function parseUntil(text: string, now: Date): { ok: true; until: Date } | { ok: false; message: string; facts: CompInputFacts } {
  const trimmed = text.trim();
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(trimmed);
  const at = dateOnly ? Date.parse(`${trimmed}T00:00:00Z`) + DAY : /^\d{4}-\d{2}-\d{2}T/.test(trimmed) ? Date.parse(trimmed) : NaN;
  if (Number.isNaN(at)) {
    const given = trimmed.slice(0, 40);
    return {
      ok: false,
      message: `"${given}" is not a date: write it as 2026-12-31, or 2026-12-31T18:00Z for a time.`,
      facts: { code: 'not_a_date', given },
    };
  }
  if (at <= now.getTime()) return { ok: false, message: 'That date has passed: a comp must end in the future.', facts: { code: 'past' } };
  if (at - now.getTime() > MAX_COMP_DAYS * DAY) {
    return { ok: false, message: 'A comp can run for at most five years.', facts: { code: 'too_far' } };
  }
  return { ok: true, until: new Date(at) };
}

export interface CompServiceDeps {
  comps: Pick<CompRepository, 'grant' | 'revoke' | 'inForce'>;
  tiers: Pick<TiersService, 'resolve'>;
  contexts: GuildContextLoader;
  authority: ActorAuthority;
  reconciler: Pick<Reconciler, 'reconcileMember'>;
  clock: Clock;
  logger: Logger;
}

/**
 * Comps: a tier given to a member by the server's staff until a date (`/comp`, the dashboard's
 * member page). The same authority as `/map`: the person giving or ending a comp must be able to
 * manage every role the tier grants here (src/core/authority.ts), read fresh from Discord. The
 * member's roles follow at once; the comp ends by itself at `until` (the scheduled check the
 * reconciler sets for every member whose roles change with time), and every change is in the audit
 * log and the mod-log with the trigger `comp`.
 */
export class CompService {
  readonly #deps: CompServiceDeps;

  constructor(deps: CompServiceDeps) {
    this.#deps = deps;
  }

  async grant(actor: Actor, memberId: string, tierValue: string, untilText: string, reasonText: string): Promise<CompGrantOutcome> {
    const now = this.#deps.clock.now();
    const until = parseUntil(untilText, now);
    if (!until.ok) return { kind: 'bad_until', message: until.message, facts: until.facts };
    const reason = reasonText.trim().replace(/\s+/g, ' ');
    if (reason === '') {
      return {
        kind: 'bad_reason',
        message: 'Say why the comp is given (it is shown to staff and in the audit log).',
        facts: { code: 'no_reason' },
      };
    }
    if (reason.length > COMP_REASON_MAX) {
      return {
        kind: 'bad_reason',
        message: `Keep the reason under ${COMP_REASON_MAX} characters.`,
        facts: { code: 'reason_too_long', max: COMP_REASON_MAX },
      };
    }
    const checked = await this.#authorized(actor, tierValue);
    if (checked.kind !== 'ok') return checked;
    const comp = await this.#deps.comps.grant(
      {
        guildId: actor.guildId,
        discordUserId: memberId,
        campaignId: checked.campaignId,
        tierId: checked.tierId,
        until: until.until,
        reason,
        grantedBy: actor.userId,
      },
      now,
    );
    this.#deps.logger.info(
      { guildId: actor.guildId, userId: memberId, by: actor.userId, tierId: checked.tierId, until: until.until },
      'comp given',
    );
    const outcome = await this.#deps.reconciler.reconcileMember(actor.guildId, memberId, { trigger: 'comp' });
    return { kind: 'granted', comp, tierTitle: checked.tierTitle, roleNames: checked.roleNames, outcome };
  }

  async revoke(actor: Actor, memberId: string, tierValue: string): Promise<CompRevokeOutcome> {
    const checked = await this.#authorized(actor, tierValue);
    if (checked.kind !== 'ok') return checked;
    const comp = await this.#deps.comps.revoke(
      { guildId: actor.guildId, discordUserId: memberId, campaignId: checked.campaignId, tierId: checked.tierId },
      actor.userId,
      this.#deps.clock.now(),
    );
    if (!comp) return { kind: 'none', tierTitle: checked.tierTitle };
    this.#deps.logger.info({ guildId: actor.guildId, userId: memberId, by: actor.userId, tierId: checked.tierId }, 'comp ended');
    const outcome = await this.#deps.reconciler.reconcileMember(actor.guildId, memberId, { trigger: 'comp' });
    return { kind: 'revoked', comp, tierTitle: checked.tierTitle, outcome };
  }

  /** The comps in force in the server (of one member, when given), with their tiers' titles. */
  async list(guildId: string, memberId?: string): Promise<CompEntry[]> {
    const [rows, guild] = await Promise.all([
      this.#deps.comps.inForce(guildId, this.#deps.clock.now(), memberId),
      this.#deps.contexts.load(guildId),
    ]);
    return rows.map((comp) => ({
      comp,
      tierTitle: guild.tiers.find((t) => t.campaignId === comp.campaignId && t.tierId === comp.tierId)?.title ?? comp.tierId,
    }));
  }

  /** The tier, and the actor's authority over every role it grants in this server (the rule of `/map`). */
  async #authorized(
    actor: Actor,
    tierValue: string,
  ): Promise<
    | { kind: 'ok'; campaignId: string; tierId: string; tierTitle: string; roleNames: string[] }
    | { kind: 'unknown_tier' }
    | { kind: 'not_allowed'; message: string; fix: string; facts?: RefusalFacts }
  > {
    const tier = await this.#deps.tiers.resolve(actor.guildId, tierValue);
    if (!tier) return { kind: 'unknown_tier' };
    const [view, guild] = await Promise.all([this.#deps.authority.read(actor, { fresh: true }), this.#deps.contexts.load(actor.guildId)]);
    if (!view) return { ...NOT_A_MEMBER };
    const guildTier = guild.tiers.find((t) => t.campaignId === tier.campaignId && t.tierId === tier.id);
    const roleIds = guildTier ? tierRoles(guild, guildTier).map((r) => r.roleId) : [];
    const roleNames: string[] = [];
    for (const roleId of roleIds) {
      const decision = this.#deps.authority.decide(view, roleId, { botMustManage: false });
      if (!decision.ok)
        return { kind: 'not_allowed', message: decision.message, fix: decision.fix, ...(decision.facts ? { facts: decision.facts } : {}) };
      if (decision.role) roleNames.push(decision.role.name);
    }
    return { kind: 'ok', campaignId: tier.campaignId, tierId: tier.id, tierTitle: tier.title, roleNames };
  }
}
