import express, { type Request, type Response, type Router } from 'express';
import type { Joining } from '../../../app/joining';
import { STATE_LIFETIME_MS, type ConsumedState, type OneTimeLinks } from '../../../app/linking/one-time-links';
import type { Logger } from '../../../shared/logger';
import type { FlowCookies } from './flow-cookies';
import { joinPageView, joinRefusalView, joinResultView, unknownJoinPageView } from './join-views';
import type { TierTitles } from './page-sources';
import { renderJoinPage, renderJoinRefusal, renderJoinResult } from './pages';
import type { JoinRefusalView } from './pages/views';
import { localeOf, tOf } from './page-language';
import { speech } from './pages/speech';
import type { Locale } from '../../../core/i18n';

/** The join page in each language: the switch on the pages that lead back to it. */
const languagesOf = (joinUrl: string) => (locale: Locale) => {
  const url = new URL(joinUrl);
  url.searchParams.set('lang', locale);
  return `${url.pathname}${url.search}`;
};

/** Discord's redirect URI of the join page: `$PUBLIC_URL/join/callback` (registered in the Developer Portal). */
export const JOIN_CALLBACK_PATH = '/join/callback';

export interface JoinRoutesDeps {
  joining: Pick<Joining, 'links' | 'places' | 'flow'>;
  oneTimeLinks: Pick<OneTimeLinks, 'flowOf'>;
  tierTitles: TierTitles;
  cookies: FlowCookies;
  logger: Logger;
  sendPage(res: Response, status: number, html: string): void;
}

/** Whether a state the service's callback consumed belongs to a join flow (its pages are the join page's). */
export function isJoinState(consumed: ConsumedState): boolean {
  if (consumed.kind === 'consumed') return consumed.row.purpose === 'join';
  if (consumed.kind === 'unbound') return consumed.purpose === 'join';
  return consumed.replayOf?.purpose === 'join';
}

export function createJoinRoutes(deps: JoinRoutesDeps): JoinRoutes {
  const { joining, cookies, logger, sendPage } = deps;
  const router = express.Router();
  const refuse = (res: Response, view: JoinRefusalView) =>
    sendPage(res, view.status, renderJoinRefusal(view, speech(localeOf(res)), view.joinUrl ? languagesOf(view.joinUrl) : null));
  const q = (req: Request, name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string).slice(0, 2048) : undefined);

  router.get(JOIN_CALLBACK_PATH, async (req, res) => {
    const flowId = deps.oneTimeLinks.flowOf(q(req, 'state'));
    if (flowId) cookies.clear(res, flowId);
    const done = await joining.flow.complete(
      { code: q(req, 'code'), state: q(req, 'state'), error: q(req, 'error') },
      cookies.reader(req),
      localeOf(res),
    );
    if (done.kind !== 'added' && done.kind !== 'already_member' && done.kind !== 'pending')
      return refuse(res, joinRefusalView(done, tOf(res)));
    const tiers = await deps.tierTitles.tiersOf(done.outcome.entitlements.map((e) => e.campaignId));
    const title = (campaignId: string, tierId: string) =>
      tiers.find((t) => t.campaignId === campaignId && t.id === tierId)?.title ?? tierId;
    sendPage(res, 200, renderJoinResult(joinResultView(done, title, tOf(res)), speech(localeOf(res))));
  });

  router.get('/join/:slug', async (req, res) => {
    const guildId = await joining.links.resolve(req.params.slug);
    if (!guildId) return refuse(res, unknownJoinPageView(tOf(res)));
    const [place, readiness] = await Promise.all([joining.places.place(guildId), joining.places.readiness(guildId)]);
    const path = `/join/${encodeURIComponent(req.params.slug.toLowerCase())}`;
    const view = joinPageView(place, readiness, `${path}/start`, tOf(res));
    sendPage(
      res,
      200,
      renderJoinPage(view, speech(localeOf(res)), (locale) => `${path}?lang=${locale}`),
    );
  });

  router.get('/join/:slug/start', async (req, res) => {
    const started = await joining.flow.start(req.params.slug);
    if (started.kind === 'unknown') return refuse(res, unknownJoinPageView(tOf(res)));
    if (started.kind === 'not_ready') {
      return sendPage(res, 503, renderJoinPage(joinPageView(started.place, started.readiness, '', tOf(res)), speech(localeOf(res))));
    }
    cookies.set(res, started.browser, STATE_LIFETIME_MS);
    res.set('Cache-Control', 'no-store').redirect(302, started.url);
  });

  return {
    router,

    async serviceCallback(req: Request, res: Response, consumed: ConsumedState): Promise<void> {
      const place =
        consumed.kind === 'invalid' ? consumed.replayOf?.guildId : consumed.kind === 'unbound' ? consumed.guildId : consumed.row.guildId;
      const where = place ? await joining.places.place(place) : null;
      if (consumed.kind === 'unbound') {
        logger.warn({ guildId: consumed.guildId }, 'join: the service callback came to another browser');
        cookies.clear(res, consumed.flowId);
        return refuse(res, joinRefusalView({ kind: 'other_browser', place: where }, tOf(res)));
      }
      if (consumed.kind === 'invalid') return refuse(res, joinRefusalView({ kind: 'bad_state', place: where }, tOf(res)));
      const error = q(req, 'error');
      const code = q(req, 'code');
      if (error || !code) {
        cookies.clear(res, consumed.flow.flowId);
        if (error === 'access_denied') return refuse(res, joinRefusalView({ kind: 'service_denied', place: where }, tOf(res)));
        if (error) logger.warn({ error: error.slice(0, 100) }, 'the service answered a join authorization with an error');
        return refuse(res, joinRefusalView({ kind: error ? 'service_error' : 'bad_state', place: where }, tOf(res)));
      }
      const step = await joining.flow.afterService(code, consumed);
      if (step.kind !== 'redirect') {
        cookies.clear(res, consumed.flow.flowId);
        return refuse(res, joinRefusalView(step, tOf(res)));
      }
      // Discord's consent page comes next: the flow's cookie lives on for that step.
      const nonce = cookies.reader(req)(consumed.flow.flowId);
      if (nonce) cookies.set(res, { flowId: consumed.flow.flowId, nonce }, STATE_LIFETIME_MS);
      res.set('Cache-Control', 'no-store').redirect(302, step.url);
    },
  };
}

/**
 * The join page's routes (docs/decisions.md §21): `GET /join/<slug>` shows the server and one
 * button; `GET /join/<slug>/start` sets the flow's cookie and goes to the service's consent page;
 * the service's callback of a join flow (`/oauth/callback`, {@link JoinRoutes.serviceCallback}) goes
 * on to Discord's consent page; `GET /join/callback` is Discord's answer, where the person joins.
 */
export interface JoinRoutes {
  router: Router;
  /** `/oauth/callback` for a join flow's service step: on to Discord's consent page, or the page that says why not. */
  serviceCallback(req: Request, res: Response, consumed: ConsumedState): Promise<void>;
}
