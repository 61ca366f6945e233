import { once } from 'node:events';
import type { Request, Response, Router } from 'express';
import type { Dashboard } from '../../../../app/dashboard';
import { type T, translator } from '../../../../core/i18n';
import { CHANGE_CONFIRMATION_MS, type Confirmation } from '../../../../app/admin/pending-changes';
import { renderStrictConfirm } from './render-strict';
import { renderChangePreview } from './render-change-preview';
import type { ChangePreview } from '../../../../app/sync/change-preview';
import type { Logger } from '../../../../shared/logger';
import { csvRow } from './csv';
import { isMemberFilter, isMemberSort } from '../../../../app/dashboard/member-list';
import { allowFlash, applyFlash, compRefusal, mapFlash, ruleFlash, settingsFlash, strictFlash } from './flashes';
import { SNOWFLAKE, describeFollowUp, parseAuditFilter, parseChannelsForm, parseSettingsForm, text } from './forms';
import { seeOther, sendDashboardPage } from './http';
import { renderAudit } from './render-audit';
import { renderMember, renderMemberSearch } from './render-members';
import { kofiUnlinkedPanel } from './render-kofi-unlinked';
import { renderOverview } from './render-overview';
import { renderSyncs } from './render-syncs';
import { renderTiers } from './render-tiers';
import type { GuildLocals } from './router';
import { guildPath } from './shell';
import { momentIn, viewerT } from './speech';
import type { DashboardFlash } from './views';

const locals = (res: Response) => res.locals.guild as GuildLocals;
/** The signed-in user's language: pages and the messages after a form speak it. */
const tOf = (res: Response): T => viewerT(locals(res).viewer);

/** What a change of the roles by tenure and amount asks, for its preview. */
const RULE_SENTENCE = (t: T) => t('dashPrev.rules');
const SETTINGS_SENTENCE = (t: T) => t('dashPrev.settings');

/** What a mapping change asks, for its preview: "Gold would give @Platinum." */
export function mappingSentence(verb: 'map' | 'unmap', o: { tierTitle: string; roleName: string }, t: T = translator('en')): string {
  const params = { tier: o.tierTitle, role: `@${o.roleName}` };
  return verb === 'map' ? t('dashPrev.wouldGive', params) : t('dashPrev.wouldStop', params);
}

/** The pages of one server; the guard in router.ts has checked the viewer's permissions for each request. */
export function registerGuildRoutes(router: Router, deps: { dashboard: Dashboard; logger: Logger }): void {
  const { dashboard } = deps;

  /** A change needs Manage Roles, as the commands do; others see the pages but cannot change. */
  async function mayChange(res: Response, back: string): Promise<boolean> {
    const { access, session } = locals(res);
    if (access.canChange) return true;
    await dashboard.signIn.setFlash(session, { tone: 'error', text: tOf(res)('dashFlash.needsManageRoles') });
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
      const t = tOf(res);
      let flash: DashboardFlash;
      if (!tier || !SNOWFLAKE.test(role)) {
        flash = { tone: 'error', text: t('dashFlash.chooseTierAndRole') };
      } else {
        const { outcome, followUp } = await dashboard.configuration[verb](access.guildId, access.userId, tier, role);
        if (outcome.kind === 'preview') return showPreview(res, (t) => mappingSentence(verb, outcome, t), outcome);
        flash = mapFlash(verb, outcome, describeFollowUp(followUp, t), t);
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
    const t = tOf(res);
    let flash: DashboardFlash;
    if (!SNOWFLAKE.test(role)) {
      flash = { tone: 'error', text: t('dashFlash.chooseRole') };
    } else {
      const { outcome, followUp } = await dashboard.configuration.allowRole(access.guildId, access.userId, role);
      flash = allowFlash(outcome, describeFollowUp(followUp, t), t);
      dashboard.overview.invalidate(access.guildId);
    }
    await dashboard.signIn.setFlash(session, flash);
    seeOther(res, back);
  });

  router.post('/:guildId/settings', async (req, res) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/tiers');
    if (!(await mayChange(res, back))) return;
    const t = tOf(res);
    const { change, problems } = parseSettingsForm(req.body as Record<string, unknown>, t);
    let flash: DashboardFlash;
    if (problems.length > 0) {
      flash = { tone: 'error', text: [t('dashFlash.nothingChanged'), ...problems].join('\n') };
    } else {
      const { outcome, followUp } = await dashboard.configuration.saveSettings(access.guildId, access.userId, change);
      if (outcome.kind === 'preview') return showPreview(res, SETTINGS_SENTENCE, outcome);
      dashboard.overview.invalidate(access.guildId);
      const request = outcome.kind === 'strict_pending' || outcome.kind === 'changed' ? outcome.strict : null;
      if (request) {
        // Strict mode waits for a confirmation, as in Discord: the page shows what it would remove.
        const saved = outcome.kind === 'changed' ? settingsFlash(outcome, describeFollowUp(followUp, t), t) : null;
        sendDashboardPage(res, 200, renderStrictConfirm({ access, viewer: locals(res).viewer, request, flash: saved }));
        return;
      }
      flash = settingsFlash(outcome, describeFollowUp(followUp, t), t);
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
    const t = tOf(res);
    const after = describeFollowUp(followUp, t);
    let flash: DashboardFlash;
    switch (outcome.kind) {
      case 'expired':
        flash = { tone: 'error', text: t('dashFlash.previewExpired', { minutes: CHANGE_CONFIRMATION_MS / 60_000 }) };
        break;
      case 'not_yours':
        flash = { tone: 'error', text: t('dashFlash.previewNotYours') };
        break;
      case 'map':
      case 'unmap':
        {
          const [verb, shown] = [outcome.kind, outcome.outcome];
          if (shown.kind === 'preview') return showPreview(res, (t) => mappingSentence(verb, shown, t), shown);
        }
        flash = mapFlash(outcome.kind, outcome.outcome, after, t);
        break;
      case 'rule_set':
      case 'rule_remove':
        if (outcome.outcome.kind === 'preview') return showPreview(res, RULE_SENTENCE, outcome.outcome);
        flash = ruleFlash(outcome.outcome, after, outcome.kind === 'rule_set' ? 'set' : 'remove', t);
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
              flash: settingsFlash(settings, after, t),
            }),
          );
          return;
        }
        flash = settingsFlash(settings, after, t);
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
    const t = tOf(res);
    await dashboard.signIn.setFlash(
      session,
      cancelled === 'cancelled'
        ? { tone: 'info', text: t('dashFlash.cancelled') }
        : { tone: 'error', text: t('dashFlash.nothingToCancel') },
    );
    seeOther(res, back);
  });

  router.post('/:guildId/settings/strict', async (req, res) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/tiers');
    if (!(await mayChange(res, back))) return;
    const body = req.body as Record<string, unknown>;
    const confirmation = text(body.confirmation, 200);
    const t = tOf(res);
    let flash: DashboardFlash;
    if (body.confirm !== 'yes' || !confirmation) {
      flash = { tone: 'error', text: t('dashFlash.strictTick') };
    } else {
      const { outcome, followUp } = await dashboard.configuration.confirmStrict(access.guildId, access.userId, confirmation);
      flash = strictFlash(outcome, describeFollowUp(followUp, t), t);
      dashboard.overview.invalidate(access.guildId);
    }
    await dashboard.signIn.setFlash(session, flash);
    seeOther(res, back);
  });

  router.post('/:guildId/channels', async (req, res) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/tiers');
    if (!(await mayChange(res, back))) return;
    const t = tOf(res);
    const { wanted, problems } = parseChannelsForm(req.body as Record<string, unknown>, t);
    const flash: DashboardFlash =
      problems.length > 0
        ? { tone: 'error', text: [t('dashFlash.nothingChanged'), ...problems].join('\n') }
        : settingsFlash(await dashboard.configuration.saveChannels(access.guildId, access.userId, wanted), '', t);
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
    const t = tOf(res);
    let flash: DashboardFlash;
    if (!SNOWFLAKE.test(role) || !Number.isFinite(value) || (body.kind !== 'tenure' && body.kind !== 'amount')) {
      flash = { tone: 'error', text: t('dashFlash.chooseRule') };
    } else {
      const rule =
        body.kind === 'tenure'
          ? { kind: 'tenure' as const, roleId: role, months: value }
          : { kind: 'amount' as const, roleId: role, cents: Math.round(value * 100) };
      const { outcome, followUp } = await dashboard.configuration.setRule(access.guildId, access.userId, rule);
      if (outcome.kind === 'preview') return showPreview(res, RULE_SENTENCE, outcome);
      flash = ruleFlash(outcome, describeFollowUp(followUp, t), 'set', t);
    }
    await dashboard.signIn.setFlash(session, flash);
    seeOther(res, back);
  });

  router.post('/:guildId/rules/remove', async (req, res) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/tiers#rules');
    if (!(await mayChange(res, back))) return;
    const role = text((req.body as Record<string, unknown>).role, 30);
    const t = tOf(res);
    let flash: DashboardFlash;
    if (!SNOWFLAKE.test(role)) flash = { tone: 'error', text: t('dashFlash.chooseRole') };
    else {
      const { outcome, followUp } = await dashboard.configuration.removeRule(access.guildId, access.userId, role);
      if (outcome.kind === 'preview') return showPreview(res, RULE_SENTENCE, outcome);
      flash = ruleFlash(outcome, describeFollowUp(followUp, t), 'remove', t);
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
    const t = tOf(res);
    let flash: DashboardFlash;
    if (!tier) {
      flash = { tone: 'error', text: t('dashFlash.chooseTier') };
    } else if (body.action === 'revoke') {
      const outcome = await dashboard.comps.revoke(actor, userId, tier);
      flash =
        outcome.kind === 'revoked'
          ? { tone: 'success', text: t('dashFlash.compEnded', { tier: outcome.tierTitle }) }
          : outcome.kind === 'none'
            ? { tone: 'info', text: t('dashFlash.compNone', { tier: outcome.tierTitle }) }
            : compRefusal(outcome, t);
    } else {
      const outcome = await dashboard.comps.grant(actor, userId, tier, text(body.until, 40), text(body.reason, 300));
      flash =
        outcome.kind === 'granted'
          ? { tone: 'success', text: t('dashFlash.compGiven', { tier: outcome.tierTitle, until: momentIn(t, outcome.comp.until) }) }
          : compRefusal(outcome, t);
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
    const more = kofi ? kofiUnlinkedPanel(kofi, viewerT(viewer)) : null;
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
    const [history, held, deliveries, flash] = await Promise.all([
      dashboard.syncs.history(access.guildId),
      dashboard.syncs.held(access.guildId),
      dashboard.deliveries.recent(access.guildId),
      flashOf(res),
    ]);
    sendDashboardPage(res, 200, renderSyncs({ access, viewer, history, held, deliveries, preview: null, flash }));
  });

  router.post('/:guildId/syncs/preview', async (_req, res) => {
    const { access, viewer, session } = locals(res);
    const back = guildPath(access.guildId, '/syncs');
    if (!(await mayChange(res, back))) return;
    const outcome = await dashboard.syncs.preview(access.guildId);
    if (outcome.kind !== 'preview') {
      await dashboard.signIn.setFlash(session, applyFlash(outcome, tOf(res)));
      return seeOther(res, back);
    }
    const [history, held, deliveries] = await Promise.all([
      dashboard.syncs.history(access.guildId),
      dashboard.syncs.held(access.guildId),
      dashboard.deliveries.recent(access.guildId),
    ]);
    sendDashboardPage(res, 200, renderSyncs({ access, viewer, history, held, deliveries, preview: outcome.report, flash: null }));
  });

  router.post('/:guildId/syncs/apply', async (req, res) => {
    const { access, session } = locals(res);
    const back = guildPath(access.guildId, '/syncs');
    if (!(await mayChange(res, back))) return;
    const body = req.body as Record<string, unknown>;
    const force = body.force === '1';
    if (force && body.confirm !== 'yes') {
      await dashboard.signIn.setFlash(session, { tone: 'error', text: tOf(res)('dashFlash.tickRemovals') });
      return seeOther(res, back);
    }
    const outcome = await dashboard.syncs.apply(access.guildId, force);
    dashboard.overview.invalidate(access.guildId);
    deps.logger.info({ guildId: access.guildId, userId: access.userId, force, outcome: outcome.kind }, 'sync started on the dashboard');
    await dashboard.signIn.setFlash(session, applyFlash(outcome, tOf(res)));
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
