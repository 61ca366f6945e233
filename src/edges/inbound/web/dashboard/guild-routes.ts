import { once } from 'node:events';
import type { Request, Response, Router } from 'express';
import type { Dashboard } from '../../../../app/dashboard';
import { type T, translator } from '../../../../core/i18n';
import type { MapOutcome } from '../../../../app/admin/mapping-service';
import { type AllowOutcome, recipientsOf } from '../../../../app/admin/role-allowances';
import { listed } from '../../../../core/authority';
import type { SettingsOutcome, StrictConfirmOutcome } from '../../../../app/admin/settings-service';
import { renderStrictConfirm } from './render-strict';
import { renderChangePreview } from './render-change-preview';
import type { ChangePreview } from '../../../../app/sync/change-preview';
import type { Confirmation } from '../../../../app/admin/pending-changes';
import type { ApplyOutcome } from '../../../../app/dashboard/syncs';
import type { RuleRoleOutcome } from '../../../../app/admin/rule-roles-service';
import type { CompRefusal } from '../../../../app/comps/comp-service';
import type { Logger } from '../../../../shared/logger';
import { csvRow } from './csv';
import { isMemberFilter, isMemberSort } from '../../../../app/dashboard/member-list';
import { SNOWFLAKE, describeFollowUp, parseAuditFilter, parseChannelsForm, parseSettingsForm, text } from './forms';
import { seeOther, sendDashboardPage } from './http';
import { renderAudit } from './render-audit';
import { renderMember, renderMemberSearch } from './render-members';
import { kofiUnlinkedPanel } from './render-kofi-unlinked';
import { renderOverview } from './render-overview';
import { heldReason, renderSyncs } from './render-syncs';
import { renderTiers } from './render-tiers';
import type { GuildLocals } from './router';
import { guildPath } from './shell';
import type { DashboardFlash } from './views';

const locals = (res: Response) => res.locals.guild as GuildLocals;

/** What a change of the roles by tenure and amount asks, for its preview. */
const RULE_SENTENCE = (t: T) => t('dashPrev.rules');
const SETTINGS_SENTENCE = (t: T) => t('dashPrev.settings');

/** What a mapping change asks, for its preview: "Gold would give @Platinum." */
export function mappingSentence(verb: 'map' | 'unmap', o: { tierTitle: string; roleName: string }, t: T = translator('en')): string {
  const params = { tier: o.tierTitle, role: `@${o.roleName}` };
  return verb === 'map' ? t('dashPrev.wouldGive', params) : t('dashPrev.wouldStop', params);
}

/** The sentence for a `/map` or `/unmap` outcome, as the command would say it. */
export function mapFlash(verb: 'map' | 'unmap', outcome: MapOutcome, followUp: string): DashboardFlash {
  switch (outcome.kind) {
    case 'done': {
      const head =
        verb === 'map'
          ? outcome.changed
            ? `${outcome.tierTitle} now gives @${outcome.roleName}.`
            : `${outcome.tierTitle} already gives @${outcome.roleName}.`
          : `${outcome.tierTitle} no longer gives @${outcome.roleName}.`;
      return { tone: 'success', text: [head, followUp].filter(Boolean).join('\n') };
    }
    case 'unknown_tier':
      return { tone: 'error', text: 'That tier is not one of this server’s campaigns; nothing was changed.' };
    case 'used':
      return { tone: 'error', text: 'Nothing was changed: that preview was already used.' };
    case 'role_refused':
      return { tone: 'error', text: `Nothing was changed: ${outcome.message}\nFix: ${outcome.fix}` };
    case 'not_mapped':
      return {
        tone: 'info',
        text: outcome.viaTier
          ? `${outcome.tierTitle} gives @${outcome.roleName} because it is the tier’s Discord role on Patreon; change it on Patreon.`
          : `${outcome.tierTitle} does not give @${outcome.roleName} through a mapping; nothing to remove.`,
      };
    default: {
      // A refusal the service may add (its authority rules): shown with its own words.
      const other = outcome as { message?: unknown; fix?: unknown };
      const message = typeof other.message === 'string' ? other.message : 'The change was refused.';
      return { tone: 'error', text: `Nothing was changed: ${message}${typeof other.fix === 'string' ? `\nFix: ${other.fix}` : ''}` };
    }
  }
}

export function settingsFlash(outcome: SettingsOutcome, followUp: string): DashboardFlash {
  switch (outcome.kind) {
    case 'invalid':
      return { tone: 'error', text: ['Nothing was changed:', ...outcome.problems.map((p) => p.replace(/\*\*/g, ''))].join('\n') };
    case 'shown':
      return { tone: 'info', text: 'Nothing to save: the settings are as they were.' };
    case 'used':
      return { tone: 'error', text: 'Nothing was changed: that preview was already used.' };
    case 'changed':
      return {
        tone: 'success',
        text: ['Settings saved.', followUp, ...outcome.notes.map((n) => n.replace(/\*\*/g, ''))].filter(Boolean).join('\n'),
      };
    default: {
      // A refusal the service may add (its authority rules) with its own words, or a change that
      // needs a confirmation the page does not offer: nothing was saved either way.
      const other = outcome as { problems?: unknown };
      const problems = Array.isArray(other.problems) ? other.problems.filter((p): p is string => typeof p === 'string') : [];
      return {
        tone: 'error',
        text:
          problems.length > 0
            ? ['Nothing was changed:', ...problems.map((p) => p.replace(/\*\*/g, ''))].join('\n')
            : 'Nothing was changed: this change needs a confirmation; make it with /settings in Discord.',
      };
    }
  }
}

export function strictFlash(outcome: StrictConfirmOutcome, followUp: string): DashboardFlash {
  switch (outcome.kind) {
    case 'changed':
      return { tone: 'success', text: ['Strict mode is on.', followUp].filter(Boolean).join('\n') };
    case 'already_on':
      return { tone: 'info', text: 'Strict mode was already on.' };
    case 'expired':
      return {
        tone: 'error',
        text: 'Strict mode stays off: the confirmation is more than 5 minutes old. Save the setting again to see what it would remove now.',
      };
    case 'not_yours':
      return { tone: 'error', text: 'Strict mode stays off: that confirmation was not made for you here. Save the setting again.' };
    case 'not_allowed':
      return { tone: 'error', text: ['Strict mode stays off:', ...outcome.problems.map((p) => p.replace(/\*\*/g, ''))].join('\n') };
  }
}

export function ruleFlash(outcome: RuleRoleOutcome, followUp: string, verb: 'set' | 'remove'): DashboardFlash {
  switch (outcome.kind) {
    case 'done':
      return {
        tone: outcome.changed ? 'success' : 'info',
        text: outcome.changed
          ? [verb === 'set' ? 'Rule saved.' : 'Rule removed.', followUp].filter(Boolean).join('\n')
          : 'Nothing to change.',
      };
    case 'invalid':
      return { tone: 'error', text: `Nothing was changed: ${outcome.message.replace(/\*\*/g, '')}` };
    case 'not_allowed':
      return { tone: 'error', text: `Nothing was changed: ${outcome.message}\nFix: ${outcome.fix}` };
    case 'preview':
    case 'used':
      return { tone: 'error', text: 'Nothing was changed: that preview was already used.' };
  }
}

function compRefusal(outcome: CompRefusal): DashboardFlash {
  switch (outcome.kind) {
    case 'unknown_tier':
      return { tone: 'error', text: 'That tier is not one of this server’s campaigns; nothing was changed.' };
    case 'bad_until':
    case 'bad_reason':
      return { tone: 'error', text: `Nothing was changed: ${outcome.message}` };
    case 'not_allowed':
      return { tone: 'error', text: `Nothing was changed: ${outcome.message}\nFix: ${outcome.fix}` };
  }
}

export function applyFlash(outcome: ApplyOutcome): DashboardFlash {
  switch (outcome.kind) {
    case 'done': {
      const r = outcome.report;
      const held = r.held ? ` ${r.held.removals} removals were held again: ${heldReason(r.held.reason)}.` : '';
      return {
        tone: r.held || r.failed > 0 ? 'warning' : 'success',
        text: `Sync done: ${r.applied.adds} given, ${r.applied.removes} taken away${r.failed ? `, ${r.failed} failed` : ''}.${held}`,
      };
    }
    case 'running':
      return { tone: 'info', text: 'The sync is running; it shows up in the history when it ends. Reload in a minute.' };
    case 'busy':
      return { tone: 'warning', text: 'Another sync is running right now, so this one did not start. Try again when it has ended.' };
    case 'nothing':
      return { tone: 'warning', text: `Nothing was synced: ${outcome.errors[0] ?? 'no campaign is connected to this server'}.` };
  }
}

/** The sentence for an allowance from the tiers page, as `/allow-role` would say it. */
export function allowFlash(outcome: AllowOutcome, followUp: string): DashboardFlash {
  switch (outcome.kind) {
    case 'allowed':
      return {
        tone: 'success',
        text: [
          `Tierlink may now give @${outcome.roleName} (${listed(outcome.permissions)}) ${recipientsOf(outcome)}. Everyone it goes to has that power.`,
          followUp,
        ]
          .filter(Boolean)
          .join('\n'),
      };
    case 'not_dangerous':
      return { tone: 'info', text: `@${outcome.roleName} has no powerful permission: Tierlink gives it without being allowed.` };
    case 'not_allowed':
    case 'role_refused':
      return { tone: 'error', text: `Nothing was allowed: ${outcome.message} ${outcome.fix}` };
    case 'withdrawn':
    case 'not_allowed_before':
      return { tone: 'info', text: `@${outcome.roleName} is held back.` };
  }
}

/** The pages of one server; the guard in router.ts has checked the viewer's permissions for each request. */
export function registerGuildRoutes(router: Router, deps: { dashboard: Dashboard; logger: Logger }): void {
  const { dashboard } = deps;

  /** A change needs Manage Roles, as the commands do; others see the pages but cannot change. */
  async function mayChange(res: Response, back: string): Promise<boolean> {
    const { access, session } = locals(res);
    if (access.canChange) return true;
    await dashboard.signIn.setFlash(session, {
      tone: 'error',
      text: 'Changes need the Manage Roles permission in this server (as /map, /settings and /sync do); nothing was changed.',
    });
    seeOther(res, back);
    return false;
  }

  const flashOf = (res: Response) => dashboard.signIn.takeFlash(locals(res).session);

  router.get('/:guildId', async (_req, res) => {
    const { access, viewer } = locals(res);
    const [overview, flash] = await Promise.all([dashboard.overview.of(access.guildId), flashOf(res)]);
    sendDashboardPage(res, 200, renderOverview({ access, viewer, overview, flash }));
  });

  router.get('/:guildId/tiers', async (_req, res) => {
    const { access, viewer } = locals(res);
    const [view, flash] = await Promise.all([dashboard.configuration.view(access.guildId), flashOf(res)]);
    sendDashboardPage(res, 200, renderTiers({ access, viewer, view, flash }));
  });

  for (const verb of ['map', 'unmap'] as const) {
    router.post(`/:guildId/tiers/${verb}`, async (req: Request, res: Response) => {
      const { access, session } = locals(res);
      const back = guildPath(access.guildId, '/tiers');
      if (!(await mayChange(res, back))) return;
      const body = req.body as Record<string, unknown>;
      const tier = text(body.tier, 100);
      const role = text(body.role, 30);
      let flash: DashboardFlash;
      if (!tier || !SNOWFLAKE.test(role)) {
        flash = { tone: 'error', text: 'Choose a tier and a role; nothing was changed.' };
      } else {
        const { outcome, followUp } = await dashboard.configuration[verb](access.guildId, access.userId, tier, role);
        if (outcome.kind === 'preview') return showPreview(res, (t) => mappingSentence(verb, outcome, t), outcome);
        flash = mapFlash(verb, outcome, describeFollowUp(followUp));
        dashboard.overview.invalidate(access.guildId);
      }
      await dashboard.signIn.setFlash(session, flash);
      seeOther(res, back);
    });
  }

  // A held-back role allowed from its tier's line (the owner or an administrator, as /allow-role).
  router.post('/:guildId/tiers/allow', async (req: Request, res: Response) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/tiers');
    if (!(await mayChange(res, back))) return;
    const role = text((req.body as Record<string, unknown>).role, 30);
    let flash: DashboardFlash;
    if (!SNOWFLAKE.test(role)) {
      flash = { tone: 'error', text: 'Choose a role; nothing was changed.' };
    } else {
      const { outcome, followUp } = await dashboard.configuration.allowRole(access.guildId, access.userId, role);
      flash = allowFlash(outcome, describeFollowUp(followUp));
      dashboard.overview.invalidate(access.guildId);
    }
    await dashboard.signIn.setFlash(session, flash);
    seeOther(res, back);
  });

  router.post('/:guildId/settings', async (req, res) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/tiers');
    if (!(await mayChange(res, back))) return;
    const { change, problems } = parseSettingsForm(req.body as Record<string, unknown>);
    let flash: DashboardFlash;
    if (problems.length > 0) {
      flash = { tone: 'error', text: ['Nothing was changed:', ...problems].join('\n') };
    } else {
      const { outcome, followUp } = await dashboard.configuration.saveSettings(access.guildId, access.userId, change);
      if (outcome.kind === 'preview') return showPreview(res, SETTINGS_SENTENCE, outcome);
      dashboard.overview.invalidate(access.guildId);
      const request = outcome.kind === 'strict_pending' || outcome.kind === 'changed' ? outcome.strict : null;
      if (request) {
        // Strict mode waits for a confirmation, as in Discord: the page shows what it would remove.
        const saved = outcome.kind === 'changed' ? settingsFlash(outcome, describeFollowUp(followUp)) : null;
        sendDashboardPage(res, 200, renderStrictConfirm({ access, viewer: locals(res).viewer, request, flash: saved }));
        return;
      }
      flash = settingsFlash(outcome, describeFollowUp(followUp));
    }
    await dashboard.signIn.setFlash(session, flash);
    seeOther(res, back);
  });

  /** A change the page shows first: what it would do, and the form that confirms it. */
  function showPreview(
    res: Response,
    what: (t: T) => string,
    shown: { preview: ChangePreview; confirmation: Confirmation; changedSince: boolean },
    flash: DashboardFlash | null = null,
  ): void {
    const { access, viewer } = locals(res);
    sendDashboardPage(res, 200, renderChangePreview({ access, viewer, what, ...shown, roleName: (_id, name) => name, flash }));
  }

  router.post('/:guildId/changes/confirm', async (req, res) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/tiers');
    if (!(await mayChange(res, back))) return;
    const token = text((req.body as Record<string, unknown>).token, 40);
    const { outcome, followUp } = await dashboard.configuration.confirmChange(access.guildId, access.userId, token);
    let flash: DashboardFlash;
    switch (outcome.kind) {
      case 'expired':
        flash = {
          tone: 'error',
          text: 'Nothing was changed: that preview expired or was already used (it lasts 5 minutes). Make the change again to see what it would do now.',
        };
        break;
      case 'not_yours':
        flash = {
          tone: 'error',
          text: 'Nothing was changed: that preview was not made for you here. Make the change yourself to see what it would do.',
        };
        break;
      case 'map':
      case 'unmap':
        {
          const [verb, shown] = [outcome.kind, outcome.outcome];
          if (shown.kind === 'preview') return showPreview(res, (t) => mappingSentence(verb, shown, t), shown);
        }
        flash = mapFlash(outcome.kind, outcome.outcome, describeFollowUp(followUp));
        break;
      case 'rule_set':
      case 'rule_remove':
        if (outcome.outcome.kind === 'preview') return showPreview(res, RULE_SENTENCE, outcome.outcome);
        flash = ruleFlash(outcome.outcome, describeFollowUp(followUp), outcome.kind === 'rule_set' ? 'set' : 'remove');
        break;
      case 'settings': {
        const settings = outcome.outcome;
        if (settings.kind === 'preview') return showPreview(res, SETTINGS_SENTENCE, settings);
        if (settings.kind === 'changed' && settings.strict) {
          sendDashboardPage(
            res,
            200,
            renderStrictConfirm({
              access,
              viewer: locals(res).viewer,
              request: settings.strict,
              flash: settingsFlash(settings, describeFollowUp(followUp)),
            }),
          );
          return;
        }
        flash = settingsFlash(settings, describeFollowUp(followUp));
      }
    }
    dashboard.overview.invalidate(access.guildId);
    deps.logger.info({ guildId: access.guildId, userId: access.userId, change: outcome.kind }, 'change confirmed on the dashboard');
    await dashboard.signIn.setFlash(session, flash);
    seeOther(res, back);
  });

  router.post('/:guildId/changes/cancel', async (req, res) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/tiers');
    if (!(await mayChange(res, back))) return;
    const token = text((req.body as Record<string, unknown>).token, 40);
    const cancelled = await dashboard.configuration.cancelChange(access.guildId, access.userId, token);
    await dashboard.signIn.setFlash(
      session,
      cancelled === 'cancelled'
        ? { tone: 'info', text: 'Cancelled: nothing was changed.' }
        : { tone: 'error', text: 'Nothing to cancel: that preview expired, was already used, or was not made for you.' },
    );
    seeOther(res, back);
  });

  router.post('/:guildId/settings/strict', async (req, res) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/tiers');
    if (!(await mayChange(res, back))) return;
    const body = req.body as Record<string, unknown>;
    const confirmation = text(body.confirmation, 200);
    let flash: DashboardFlash;
    if (body.confirm !== 'yes' || !confirmation) {
      flash = { tone: 'error', text: 'Strict mode stays off: tick the box to confirm what it would take away.' };
    } else {
      const { outcome, followUp } = await dashboard.configuration.confirmStrict(access.guildId, access.userId, confirmation);
      flash = strictFlash(outcome, describeFollowUp(followUp));
      dashboard.overview.invalidate(access.guildId);
    }
    await dashboard.signIn.setFlash(session, flash);
    seeOther(res, back);
  });

  router.post('/:guildId/channels', async (req, res) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/tiers');
    if (!(await mayChange(res, back))) return;
    const { wanted, problems } = parseChannelsForm(req.body as Record<string, unknown>);
    const flash: DashboardFlash =
      problems.length > 0
        ? { tone: 'error', text: ['Nothing was changed:', ...problems].join('\n') }
        : settingsFlash(await dashboard.configuration.saveChannels(access.guildId, access.userId, wanted), '');
    await dashboard.signIn.setFlash(session, flash);
    seeOther(res, back);
  });

  router.post('/:guildId/rules', async (req, res) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/tiers#rules');
    if (!(await mayChange(res, back))) return;
    const body = req.body as Record<string, unknown>;
    const role = text(body.role, 30);
    const value = Number(text(body.value, 12));
    let flash: DashboardFlash;
    if (!SNOWFLAKE.test(role) || !Number.isFinite(value) || (body.kind !== 'tenure' && body.kind !== 'amount')) {
      flash = { tone: 'error', text: 'Choose a role and a number of months or an amount; nothing was changed.' };
    } else {
      const rule =
        body.kind === 'tenure'
          ? { kind: 'tenure' as const, roleId: role, months: value }
          : { kind: 'amount' as const, roleId: role, cents: Math.round(value * 100) };
      const { outcome, followUp } = await dashboard.configuration.setRule(access.guildId, access.userId, rule);
      if (outcome.kind === 'preview') return showPreview(res, RULE_SENTENCE, outcome);
      flash = ruleFlash(outcome, describeFollowUp(followUp), 'set');
    }
    await dashboard.signIn.setFlash(session, flash);
    seeOther(res, back);
  });

  router.post('/:guildId/rules/remove', async (req, res) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/tiers#rules');
    if (!(await mayChange(res, back))) return;
    const role = text((req.body as Record<string, unknown>).role, 30);
    let flash: DashboardFlash;
    if (!SNOWFLAKE.test(role)) flash = { tone: 'error', text: 'Choose a role; nothing was changed.' };
    else {
      const { outcome, followUp } = await dashboard.configuration.removeRule(access.guildId, access.userId, role);
      if (outcome.kind === 'preview') return showPreview(res, RULE_SENTENCE, outcome);
      flash = ruleFlash(outcome, describeFollowUp(followUp), 'remove');
    }
    await dashboard.signIn.setFlash(session, flash);
    seeOther(res, back);
  });

  router.post('/:guildId/members/:userId/comps', async (req, res, next) => {
    const { access, session } = locals(res);
    const userId = String(req.params.userId);
    if (!SNOWFLAKE.test(userId)) return next();
    const back = guildPath(access.guildId, `/members/${userId}#comps`);
    if (!(await mayChange(res, back))) return;
    const body = req.body as Record<string, unknown>;
    const actor = { guildId: access.guildId, userId: access.userId };
    const tier = text(body.tier, 100);
    let flash: DashboardFlash;
    if (!tier) {
      flash = { tone: 'error', text: 'Choose a tier; nothing was changed.' };
    } else if (body.action === 'revoke') {
      const outcome = await dashboard.comps.revoke(actor, userId, tier);
      flash =
        outcome.kind === 'revoked'
          ? { tone: 'success', text: `The comp of ${outcome.tierTitle} has ended.` }
          : outcome.kind === 'none'
            ? { tone: 'info', text: `No comp of ${outcome.tierTitle} was in force.` }
            : compRefusal(outcome);
    } else {
      const outcome = await dashboard.comps.grant(actor, userId, tier, text(body.until, 40), text(body.reason, 300));
      flash =
        outcome.kind === 'granted'
          ? {
              tone: 'success',
              text: `${outcome.tierTitle} given as a comp until ${outcome.comp.until.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
            }
          : compRefusal(outcome);
    }
    dashboard.overview.invalidate(access.guildId);
    await dashboard.signIn.setFlash(session, flash);
    seeOther(res, back);
  });

  router.get('/:guildId/members', async (req, res) => {
    const { access, viewer } = locals(res);
    const query = text(req.query.q, 100);
    const filter = isMemberFilter(req.query.filter) ? req.query.filter : 'all';
    const sort = isMemberSort(req.query.sort) ? req.query.sort : 'name';
    const page = Number.parseInt(typeof req.query.page === 'string' ? req.query.page : '1', 10) || 1;
    const [result, list, joinUrl, flash, kofi] = await Promise.all([
      query ? dashboard.members.search(access.guildId, query) : null,
      dashboard.memberList.page(access.guildId, { filter, sort, page }),
      dashboard.joinUrl(access.guildId),
      flashOf(res),
      dashboard.kofiUnlinked(access.guildId),
    ]);
    const more = kofi ? kofiUnlinkedPanel(kofi) : null;
    sendDashboardPage(res, 200, renderMemberSearch({ access, viewer, query, result, list, joinUrl, flash, more }));
  });

  router.get('/:guildId/members.csv', async (req, res) => {
    const { access } = locals(res);
    const filter = isMemberFilter(req.query.filter) ? req.query.filter : 'all';
    await streamCsv(res, {
      filename: `tierlink-members-${filter}-${access.guildId}.csv`,
      header: ['name', 'tier', 'standing', 'patron since', 'on', 'discord user id', 'discord name', 'in the server', 'comped'],
      batches: dashboard.memberList.export(access.guildId, filter),
      row: (m) => [
        m.patronName ?? m.displayName,
        m.tierTitles.join('; '),
        m.standing,
        m.since ? m.since.toISOString().slice(0, 10) : null,
        m.source === 'discord' ? null : m.source,
        m.discordUserId,
        m.displayName,
        m.discordUserId ? (m.inServer ? 'yes' : 'no') : null,
        m.comped ? 'yes' : 'no',
      ],
      failed: (error) => deps.logger.error({ err: error, guildId: access.guildId }, 'members export failed'),
    });
  });

  router.get('/:guildId/members/:userId', async (req, res, next) => {
    const { access, viewer } = locals(res);
    const userId = String(req.params.userId);
    if (!SNOWFLAKE.test(userId)) return next();
    const [detail, tiers, flash] = await Promise.all([
      dashboard.members.detail(access.guildId, userId),
      dashboard.configuration.tierChoices(access.guildId),
      flashOf(res),
    ]);
    sendDashboardPage(res, 200, renderMember({ access, viewer, detail, tiers, flash }));
  });

  router.get('/:guildId/audit', async (req, res) => {
    const { access, viewer } = locals(res);
    const { form, query, problems } = parseAuditFilter(req.query as Record<string, unknown>);
    const direction = req.query.dir === 'newer' ? 'newer' : 'older';
    const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : null;
    const [page, view, flash] = await Promise.all([
      dashboard.audit.page(access.guildId, query, { cursor, direction }),
      dashboard.configuration.roleChoices(access.guildId),
      flashOf(res),
    ]);
    sendDashboardPage(res, 200, renderAudit({ access, viewer, filter: form, roles: view, page, problems, flash }));
  });

  router.get('/:guildId/audit.csv', async (req, res) => {
    const { access } = locals(res);
    const { query } = parseAuditFilter(req.query as Record<string, unknown>);
    await streamCsv(res, {
      filename: `tierlink-audit-${access.guildId}.csv`,
      header: ['time (UTC)', 'member id', 'patreon name', 'role id', 'role', 'change', 'outcome', 'trigger', 'reason', 'error'],
      batches: dashboard.audit.export(access.guildId, query),
      row: (e) => [e.at.toISOString(), e.userId, e.patronName, e.roleId, e.roleName, e.action, e.outcome, e.trigger, e.reason, e.error],
      failed: (error) => deps.logger.error({ err: error, guildId: access.guildId }, 'audit log export failed'),
    });
  });

  router.get('/:guildId/syncs', async (_req, res) => {
    const { access, viewer } = locals(res);
    const [history, held, flash] = await Promise.all([
      dashboard.syncs.history(access.guildId),
      dashboard.syncs.held(access.guildId),
      flashOf(res),
    ]);
    sendDashboardPage(res, 200, renderSyncs({ access, viewer, history, held, preview: null, flash }));
  });

  router.post('/:guildId/syncs/preview', async (_req, res) => {
    const { access, viewer, session } = locals(res);
    const back = guildPath(access.guildId, '/syncs');
    if (!(await mayChange(res, back))) return;
    const outcome = await dashboard.syncs.preview(access.guildId);
    if (outcome.kind !== 'preview') {
      await dashboard.signIn.setFlash(session, applyFlash(outcome));
      return seeOther(res, back);
    }
    const [history, held] = await Promise.all([dashboard.syncs.history(access.guildId), dashboard.syncs.held(access.guildId)]);
    sendDashboardPage(res, 200, renderSyncs({ access, viewer, history, held, preview: outcome.report, flash: null }));
  });

  router.post('/:guildId/syncs/apply', async (req, res) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/syncs');
    if (!(await mayChange(res, back))) return;
    const body = req.body as Record<string, unknown>;
    const force = body.force === '1';
    if (force && body.confirm !== 'yes') {
      await dashboard.signIn.setFlash(session, { tone: 'error', text: 'Tick the box to confirm the removals; nothing was changed.' });
      return seeOther(res, back);
    }
    const outcome = await dashboard.syncs.apply(access.guildId, force);
    dashboard.overview.invalidate(access.guildId);
    deps.logger.info({ guildId: access.guildId, userId: access.userId, force, outcome: outcome.kind }, 'sync started on the dashboard');
    await dashboard.signIn.setFlash(session, applyFlash(outcome));
    seeOther(res, back);
  });
}

/**
 * A CSV download streamed batch by batch, waiting for the socket to drain, stopped when the browser
 * goes away. A byte-order mark first, so spreadsheets read the names as UTF-8. The status line is
 * sent before the first batch: a failure cuts the download short, so the file is visibly incomplete.
 */
async function streamCsv<T>(
  res: Response,
  o: {
    filename: string;
    header: readonly string[];
    batches: AsyncIterable<readonly T[]>;
    row: (item: T) => ReadonlyArray<string | number | null | undefined>;
    failed: (error: unknown) => void;
  },
): Promise<void> {
  res.status(200).set({
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${o.filename}"`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  let aborted = false;
  res.on('close', () => {
    aborted = !res.writableFinished;
  });
  res.write(`\uFEFF${csvRow(o.header)}`);
  try {
    for await (const batch of o.batches) {
      if (aborted) return;
      if (!res.write(batch.map((item) => csvRow(o.row(item))).join(''))) await once(res, 'drain');
    }
    res.end();
  } catch (error) {
    o.failed(error);
    res.destroy();
  }
}
