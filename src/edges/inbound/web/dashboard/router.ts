import { type MessageKey, type T, fromDiscordLocale } from '../../../../core/i18n';
import { tOf } from '../page-language';
import type { DashboardFlash } from './views';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Dashboard } from '../../../../app/dashboard';
import type { GuildAccess } from '../../../../app/dashboard/access';
import { SESSION_LIFETIME_MS, STATE_LIFETIME_MS, type DashboardSession, safeNext } from '../../../../app/dashboard/sign-in';
import type { Logger } from '../../../../shared/logger';
import { SNOWFLAKE } from './forms';
import { registerGuildRoutes } from './guild-routes';
import { clearCookie, cookieName, readCookie, seeOther, sendDashboardPage, setCookie } from './http';
import { renderNotice, renderServers, renderSignIn } from './render-entry';
import type { Viewer } from './shell';
import { viewerT } from './speech';

export interface DashboardRouterDeps {
  dashboard: Dashboard;
  logger: Logger;
}

/** What the guard leaves for the page handlers. */
export interface GuildLocals {
  session: DashboardSession;
  viewer: Viewer;
  access: GuildAccess;
}

type SignInKey = Extract<MessageKey, `dashSignIn.${string}`>;

/** A one-message page for someone not signed in, in the browser's language, with the way back to sign in. */
function signedOutNotice(t: T, title: SignInKey, lines: readonly SignInKey[], tone: DashboardFlash['tone']): string {
  return renderNotice({
    title: t(title),
    viewer: null,
    locale: t.locale,
    tone,
    lines: lines.map((line) => t(line)),
    action: { label: t('dashSignIn.signIn'), href: '/dashboard' },
  });
}

export const viewerOf = (session: DashboardSession): Viewer => ({
  name: session.userName,
  csrfToken: session.csrfToken,
  locale: fromDiscordLocale(session.locale),
});

/**
 * `GET /dashboard` and below (docs/contract.md, second round): sign-in with Discord, the server menu and
 * each server's pages. Every request reads its session; every page of a server checks the viewer's
 * permissions there again; every form carries the session's token and posts to this site only.
 */
export function createDashboardRouter(deps: DashboardRouterDeps): Router {
  const { dashboard, logger } = deps;
  const router = express.Router();
  const secure = () => dashboard.secureCookies();
  const sessionCookie = () => cookieName('session', secure());
  const signinCookie = () => cookieName('signin', secure());

  router.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 }));

  // The session, when the browser has one; every POST must come with it, its form token and from this site.
  router.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      const session = await dashboard.signIn.session(readCookie(req, sessionCookie()));
      res.locals.session = session;
      if (req.method !== 'POST') return next();
      if (!session) {
        return sendDashboardPage(
          res,
          401,
          signedOutNotice(tOf(res), 'dashSignIn.ended', ['dashSignIn.endedWhy', 'dashSignIn.endedNext'], 'warning'),
        );
      }
      const origin = req.headers.origin;
      const ours = new URL(dashboard.url()).origin;
      const body = (req.body ?? {}) as Record<string, unknown>;
      if ((origin && origin !== 'null' && origin !== ours) || !dashboard.signIn.checkCsrf(session, body._csrf)) {
        logger.warn({ userId: session.userId, origin: origin?.slice(0, 100) ?? null }, 'dashboard form refused: bad token or origin');
        const viewer = viewerOf(session);
        const t = viewerT(viewer);
        return sendDashboardPage(
          res,
          403,
          renderNotice({
            title: t('dashServers.formExpired'),
            viewer,
            tone: 'error',
            lines: [t('dashServers.formExpiredWhy'), t('dashServers.formExpiredNext')],
            action: { label: t('dashServers.backToDashboard'), href: '/dashboard' },
          }),
        );
      }
      next();
    } catch (error) {
      next(error);
    }
  });

  router.get('/', async (req, res) => {
    const session = res.locals.session as DashboardSession | null;
    if (!session) {
      return sendDashboardPage(
        res,
        200,
        renderSignIn({ next: safeNext(typeof req.query.next === 'string' ? req.query.next : null), t: tOf(res) }),
      );
    }
    const [servers, flash] = await Promise.all([dashboard.access.servers(session), dashboard.signIn.takeFlash(session)]);
    sendDashboardPage(res, 200, renderServers({ viewer: viewerOf(session), servers, flash }));
  });

  router.get('/login', (req, res) => {
    const { authorizeUrl, stateCookie } = dashboard.signIn.begin(typeof req.query.next === 'string' ? req.query.next : undefined);
    setCookie(res, signinCookie(), stateCookie, { secure: secure(), maxAgeMs: STATE_LIFETIME_MS });
    res.set('Cache-Control', 'no-store').redirect(302, authorizeUrl);
  });

  router.get('/callback', async (req, res) => {
    const q = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string).slice(0, 2048) : undefined);
    const outcome = await dashboard.signIn.complete(
      { code: q('code'), state: q('state'), error: q('error') },
      readCookie(req, signinCookie()),
    );
    clearCookie(res, signinCookie(), secure());
    switch (outcome.kind) {
      case 'signed_in':
        setCookie(res, sessionCookie(), outcome.sessionCookie, { secure: secure(), maxAgeMs: SESSION_LIFETIME_MS });
        return seeOther(res, outcome.next);
      case 'denied':
        return sendDashboardPage(res, 200, signedOutNotice(tOf(res), 'dashSignIn.cancelled', ['dashSignIn.cancelledWhy'], 'info'));
      case 'bad_state':
        return sendDashboardPage(
          res,
          400,
          signedOutNotice(tOf(res), 'dashSignIn.expired', ['dashSignIn.expiredWhy', 'dashSignIn.expiredNext'], 'warning'),
        );
      case 'discord_error':
        return sendDashboardPage(
          res,
          502,
          signedOutNotice(tOf(res), 'dashSignIn.discordDown', ['dashSignIn.discordDownWhy', 'dashSignIn.discordDownNext'], 'error'),
        );
    }
  });

  router.post('/logout', async (_req, res) => {
    await dashboard.signIn.signOut(res.locals.session as DashboardSession);
    clearCookie(res, sessionCookie(), secure());
    seeOther(res, '/dashboard');
  });

  // Every page of a server: signed in, and allowed there now.
  router.use('/:guildId', async (req: Request, res: Response, next: NextFunction) => {
    try {
      const guildId = String(req.params.guildId);
      if (!SNOWFLAKE.test(guildId)) return next('router');
      const session = res.locals.session as DashboardSession | null;
      if (!session) {
        const next = safeNext(`/dashboard/${guildId}${req.path === '/' ? '' : req.path}`);
        return sendDashboardPage(res, 401, renderSignIn({ next, t: tOf(res) }));
      }
      // Pages use the standing kept for the session a moment; a form that changes something reads it again.
      const entry = await dashboard.access.enter(session, guildId, { fresh: req.method !== 'GET' && req.method !== 'HEAD' });
      if (entry.kind === 'allowed') {
        const locals: GuildLocals = { session, viewer: viewerOf(session), access: entry.access };
        res.locals.guild = locals;
        return next();
      }
      const viewer = viewerOf(session);
      const t = viewerT(viewer);
      const back = { label: t('dashServers.back'), href: '/dashboard' };
      if (entry.kind === 'not_served') {
        return sendDashboardPage(
          res,
          404,
          renderNotice({ title: t('dashServers.notFound'), viewer, tone: 'info', lines: [t('dashServers.notServed')], action: back }),
        );
      }
      logger.warn({ userId: session.userId, guildId, entry: entry.kind }, 'dashboard refused: no permission in this server');
      return sendDashboardPage(
        res,
        403,
        renderNotice({
          title: t('dashServers.notYours'),
          viewer,
          tone: 'error',
          lines:
            entry.kind === 'not_member'
              ? [t('dashServers.notMember', { server: entry.guildName })]
              : [t('dashServers.noPermission', { server: entry.guildName }), t('dashServers.askOwner')],
          action: back,
        }),
      );
    } catch (error) {
      next(error);
    }
  });

  registerGuildRoutes(router, { dashboard, logger });

  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    logger.error({ err: error, path: req.path }, 'dashboard request failed');
    const session = res.locals.session as DashboardSession | null | undefined;
    const viewer = session ? viewerOf(session) : null;
    const t = viewerT(viewer);
    sendDashboardPage(
      res,
      503,
      renderNotice({
        title: t('dashServers.failed'),
        viewer,
        tone: 'error',
        lines: [t('dashServers.failedWhy'), t('dashServers.failedNext')],
        action: { label: t('dashServers.back'), href: '/dashboard' },
      }),
    );
  });

  return router;
}
