import { sendHtml } from './html-response';
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { pinoHttp } from 'pino-http';
import type { ConnectCompletion, ConnectService } from '../../../app/admin/connect-service';
import type { LinkService } from '../../../app/linking/link-service';
import { DISCORD_CALLBACK_PATH, type DiscordStep } from '../../../app/linking/discord-step';
import type { Joining } from '../../../app/joining';
import type { OneTimeLinks } from '../../../app/linking/one-time-links';
import type { HealthReport } from '../../outbound/observability/health';
import { WEBHOOK_PATH } from '../../../app/webhooks/delivery';
import { KOFI_WEBHOOK_PATH } from './kofi-endpoint';
import { redactUrl } from '../../outbound/observability/logger';
import { boundText } from '../../../shared/bounded-text';
import type { Metrics } from '../../outbound/observability/metrics';
import type { Logger } from '../../../shared/logger';
import { createFlowCookies } from './flow-cookies';
import { createFlowRoutes } from './flow-routes';
import { type WebLimits, limitPerAddress, webLimits } from './web-limits';
import { isQuiet } from './rate-limit';
import { mayRead } from './surface-access';
import type { GuildNames, TierTitles } from './page-sources';
import { PAGE_CONTENT_SECURITY_POLICY, renderMessage } from './pages';
import type { ConnectResultView, MessageView } from './pages/views';
import { speech } from './pages/speech';
import { localeOf, pageLanguage, tOf } from './page-language';
import type { Locale, T } from '../../../core/i18n';

export interface WebAppDeps {
  logger: Logger;
  metrics: Metrics;
  oneTimeLinks: OneTimeLinks;
  linkService: LinkService;
  connectService: ConnectService;
  /** The Discord sign-in that opens a `/link` or `/connect` link. */
  discordStep: DiscordStep;
  guilds: GuildNames;
  tierTitles: TierTitles;
  /** `POST /webhooks/patreon`. */
  webhookRouter: Router;
  /** `POST /webhooks/kofi`, with KOFI_VERIFICATION_TOKEN (src/edges/inbound/web/kofi-endpoint.ts). */
  kofiRouter?: Router;
  /** `/dashboard` and below (src/edges/inbound/web/dashboard). */
  dashboardRouter: Router;
  /** `POST /interactions`, with DISCORD_PUBLIC_KEY (src/edges/inbound/web/interactions-endpoint.ts). */
  interactionsRouter?: Router;
  /** The join pages, `/join/<slug>` and below (src/edges/inbound/web/join-routes.ts). */
  joining: Pick<Joining, 'links' | 'places' | 'flow'>;
  /** The connect result page of a bound campaign (tiers, webhook, dry run, problems). */
  connectView(completion: Extract<ConnectCompletion, { kind: 'bound' }>, t: T): Promise<ConnectResultView>;
  health(): Promise<HealthReport>;
  /** The public `/healthz` answer: whether the database answers (no detail, cheap enough for anyone). */
  healthOk(): Promise<boolean>;
  /** HEALTH_TOKEN: the detailed `/healthz` for a request from outside the loopback address. */
  healthToken?: string | undefined;
  /** METRICS_TOKEN: `/metrics` for a request from outside the loopback address. */
  metricsToken?: string | undefined;
  /** PUBLIC_URL is https: every answer carries Strict-Transport-Security. */
  hsts?: boolean;
  /**
   * TRUST_PROXY (Express's `trust proxy`): whose `X-Forwarded-For` names the client of a request,
   * for its rate-limit budget. Default the loopback address only: a client anywhere else, on the
   * local network too, cannot choose its budget by writing the header.
   */
  trustProxy?: boolean | number | string;
  /** Per-address budgets of the public routes (defaults: {@link webLimits}). */
  limits?: Partial<WebLimits>;
  /** The clock of the budgets' windows (real time unless a test says otherwise). */
  limiterNow?: () => number;
  /** Answers 503 to new page requests while shutting down. */
  isShuttingDown(): boolean;
  /** PUBLIC_URL: flow cookies are `Secure` (and `__Host-`) when it is https. */
  publicUrl(): string;
}

/** Pages with one message that only this module uses; the flow messages live with the renderers. */
const messages = {
  notFound: (t: T): MessageView => ({
    status: 404,
    tone: 'info',
    title: t('app.notFoundTitle'),
    message: t('app.notFoundMessage'),
    next: null,
  }),
  unavailable: (t: T): MessageView => ({
    status: 503,
    tone: 'warning',
    title: t('app.restartingTitle'),
    message: t('app.restartingMessage'),
    next: t('app.restartingNext'),
  }),
  tooMany: (t: T): MessageView => ({
    status: 429,
    tone: 'warning',
    title: t('app.tooManyTitle'),
    message: t('app.tooManyMessage'),
    next: t('app.tooManyNext'),
  }),
  failed: (t: T): MessageView => ({
    status: 500,
    tone: 'error',
    title: t('app.failedTitle'),
    message: t('app.failedMessage'),
    next: t('app.failedNext'),
  }),
};

function sendPage(res: Response, status: number, html: string): void {
  sendHtml(res, status, html, PAGE_CONTENT_SECURITY_POLICY);
}

const message = (res: Response, view: MessageView, locale?: Locale) =>
  sendPage(res, view.status, renderMessage(view, speech(locale ?? localeOf(res))));

/**
 * The web side of Tierlink (docs/contract.md, HTTP routes): the one-time links of `/link` and
 * `/connect`, the OAuth callback for both, the webhook receiver, health and metrics.
 */
export function createWebApp(deps: WebAppDeps): express.Express {
  const { logger, metrics } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy ?? 'loopback');

  if (deps.hsts) {
    app.use((_req, res, next) => {
      res.setHeader('Strict-Transport-Security', 'max-age=31536000');
      next();
    });
  }
  app.use(pageLanguage({ secure: () => deps.publicUrl().startsWith('https:') }));
  app.use((req, res, next) => {
    res.on('finish', () => {
      const route = (req.route?.path as string | undefined) ?? (req.baseUrl || 'unmatched');
      metrics.httpRequests.inc({ route: `${req.method} ${route}`, status: `${Math.floor(res.statusCode / 100)}xx` });
    });
    next();
  });
  // Before the access log: a request refused for its address's budget costs no log line (the
  // limiter logs once per address and window).
  const limits = webLimits(deps.limits);
  const limited = (name: string, rule: keyof WebLimits) =>
    limitPerAddress(limits[rule], { name, logger, now: deps.limiterNow, refuse: (res) => message(res, messages.tooMany(tOf(res))) });
  app.use(['/link', '/connect'], limited('/link and /connect', 'links'));
  app.use(['/oauth/callback', DISCORD_CALLBACK_PATH], limited('/oauth/callback and /discord/callback', 'callback'));
  app.use('/dashboard', limited('/dashboard', 'dashboard'));
  app.use('/join', limited('/join', 'join'));

  app.use(
    pinoHttp({
      logger: logger as never,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({
          id: req.id,
          method: boundText(req.method, 16),
          url: boundText(redactUrl(req.url)),
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, error) =>
        isQuiet(res as never) ? 'silent' : error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/metrics' },
    }),
  );

  app.get('/healthz', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    if (!mayRead(req, deps.healthToken)) {
      const ok = await deps.healthOk().catch(() => false);
      res.status(ok ? 200 : 503).json({ ok });
      return;
    }
    try {
      const report = await deps.health();
      res.status(report.ok ? 200 : 503).json(report);
    } catch (error) {
      logger.error({ err: error }, 'health check failed');
      res.status(503).json({ ok: false, checks: { database: { ok: false, detail: 'health check failed' } } });
    }
  });

  app.get('/metrics', async (req, res) => {
    if (!mayRead(req, deps.metricsToken)) {
      res
        .status(401)
        .set({ 'WWW-Authenticate': 'Bearer realm="tierlink-metrics"', 'Cache-Control': 'no-store' })
        .type('text/plain')
        .send('Metrics are served to the loopback address, or with Authorization: Bearer <METRICS_TOKEN>.\n');
      return;
    }
    res.set('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.use(WEBHOOK_PATH, deps.webhookRouter);
  if (deps.kofiRouter) app.use(KOFI_WEBHOOK_PATH, deps.kofiRouter);
  if (deps.interactionsRouter) app.use('/interactions', deps.interactionsRouter);

  app.use((_req, res, next) => (deps.isShuttingDown() ? message(res, messages.unavailable(tOf(res))) : next()));

  app.use('/dashboard', deps.dashboardRouter);

  app.get('/', (_req, res) => {
    const t = tOf(res);
    message(res, { status: 200, tone: 'info', title: t('app.rootTitle'), message: t('app.rootMessage'), next: t('app.rootNext') });
  });

  app.use(
    createFlowRoutes({
      ...deps,
      cookies: createFlowCookies({ secure: () => deps.publicUrl().startsWith('https:') }),
      sendPage,
      message,
    }),
  );

  app.use((_req, res) => message(res, messages.notFound(tOf(res))));

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    logger.error({ err: error, url: boundText(redactUrl(req.url)) }, 'request failed');
    if (res.headersSent) return;
    message(res, messages.failed(tOf(res)));
  });

  return app;
}
