import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { pinoHttp } from 'pino-http';
import type { ConnectCompletion, ConnectService } from '../../app/admin/connect-service';
import type { LinkService } from '../../app/linking/link-service';
import type { Joining } from '../../app/joining';
import type { OneTimeLinks } from '../../app/linking/one-time-links';
import type { HealthReport } from '../observability/health';
import { WEBHOOK_PATH } from '../../app/webhooks/delivery';
import { redactUrl } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { Logger } from '../../shared/logger';
import { createFlowCookies } from './flow-cookies';
import { createFlowRoutes } from './flow-routes';
import type { GuildNames, TierTitles } from './page-sources';
import { PAGE_CONTENT_SECURITY_POLICY, renderMessage } from './pages';
import type { ConnectResultView, MessageView } from './pages/views';

export interface WebAppDeps {
  logger: Logger;
  metrics: Metrics;
  oneTimeLinks: OneTimeLinks;
  linkService: LinkService;
  connectService: ConnectService;
  guilds: GuildNames;
  tierTitles: TierTitles;
  /** `POST /webhooks/patreon`. */
  webhookRouter: Router;
  /** `/dashboard` and below (src/edges/web/dashboard). */
  dashboardRouter: Router;
  /** The join pages, `/join/<slug>` and below (src/edges/web/join-routes.ts). */
  joining: Pick<Joining, 'links' | 'places' | 'flow'>;
  /** The connect result page of a bound campaign (tiers, webhook, dry run, problems). */
  connectView(completion: Extract<ConnectCompletion, { kind: 'bound' }>): Promise<ConnectResultView>;
  health(): Promise<HealthReport>;
  /** Answers 503 to new page requests while shutting down. */
  isShuttingDown(): boolean;
  /** PUBLIC_URL: flow cookies are `Secure` (and `__Host-`) when it is https. */
  publicUrl(): string;
}

/** Pages with one message that only this module uses; the flow messages live with the renderers. */
const messages = {
  notFound: { status: 404, tone: 'info', title: 'Nothing here', message: 'This address does not lead anywhere.', next: null },
  unavailable: {
    status: 503,
    tone: 'warning',
    title: 'Restarting',
    message: 'Tierlink is restarting. Your link is still valid.',
    next: 'Reload this page in a few seconds.',
  },
  failed: {
    status: 500,
    tone: 'error',
    title: 'Something went wrong on our side',
    message: 'The problem was logged. Nothing was changed on your account.',
    next: 'Try again in a few minutes.',
  },
} satisfies Record<string, MessageView>;

function sendPage(res: Response, status: number, html: string): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': `${PAGE_CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`,
    })
    .send(html);
}

const message = (res: Response, view: MessageView) => sendPage(res, view.status, renderMessage(view));

/**
 * The web side of Tierlink (docs/contract.md, HTTP routes): the one-time links of `/link` and
 * `/connect`, the OAuth callback for both, the webhook receiver, health and metrics.
 */
export function createWebApp(deps: WebAppDeps): express.Express {
  const { logger, metrics } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');

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
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/metrics' },
    }),
  );
  app.use((req, res, next) => {
    res.on('finish', () => {
      const route = (req.route?.path as string | undefined) ?? (req.baseUrl || 'unmatched');
      metrics.httpRequests.inc({ route: `${req.method} ${route}`, status: `${Math.floor(res.statusCode / 100)}xx` });
    });
    next();
  });

  app.get('/healthz', async (_req, res) => {
    try {
      const report = await deps.health();
      res.status(report.ok ? 200 : 503).json(report);
    } catch (error) {
      logger.error({ err: error }, 'health check failed');
      res.status(503).json({ ok: false, checks: { database: { ok: false, detail: 'health check failed' } } });
    }
  });

  app.get('/metrics', async (_req, res) => {
    res.set('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.use(WEBHOOK_PATH, deps.webhookRouter);

  app.use((_req, res, next) => (deps.isShuttingDown() ? message(res, messages.unavailable) : next()));

  app.use('/dashboard', deps.dashboardRouter);

  app.get('/', (_req, res) => {
    message(res, {
      status: 200,
      tone: 'info',
      title: 'Tierlink is running',
      message: 'Patreon tiers, kept in step with Discord roles.',
      next: 'Run /link in your Discord server to link your membership.',
    });
  });

  app.use(
    createFlowRoutes({
      ...deps,
      cookies: createFlowCookies({ secure: () => deps.publicUrl().startsWith('https:') }),
      sendPage,
      message,
    }),
  );

  app.use((_req, res) => message(res, messages.notFound));

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    logger.error({ err: error, url: redactUrl(req.url) }, 'request failed');
    if (res.headersSent) return;
    message(res, messages.failed);
  });

  return app;
}
