import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { pinoHttp } from 'pino-http';
import type { ConnectCompletion, ConnectService } from '../../app/admin/connect-service';
import type { LinkService } from '../../app/linking/link-service';
import type { OneTimeLinks } from '../../app/linking/one-time-links';
import type { HealthReport } from '../observability/health';
import { WEBHOOK_PATH } from '../../app/webhooks/delivery';
import { redactUrl } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { Logger } from '../../shared/logger';
import { linkResultView } from './link-result-view';
import type { GuildNames, TierTitles } from './page-sources';
import {
  PAGE_CONTENT_SECURITY_POLICY,
  badStateMessage,
  consentDeniedMessage,
  linkExpiredMessage,
  renderChooseCampaign,
  renderConnectResult,
  renderLinkResult,
  renderMessage,
  serviceDownMessage,
} from './pages';
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
  /** `POST /interactions`, with DISCORD_PUBLIC_KEY (src/edges/web/interactions-endpoint.ts). */
  interactionsRouter?: Router;
  /** The connect result page of a bound campaign (tiers, webhook, dry run, problems). */
  connectView(completion: Extract<ConnectCompletion, { kind: 'bound' }>): Promise<ConnectResultView>;
  health(): Promise<HealthReport>;
  /** Answers 503 to new page requests while shutting down. */
  isShuttingDown(): boolean;
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
  if (deps.interactionsRouter) app.use('/interactions', deps.interactionsRouter);

  app.use((_req, res, next) => (deps.isShuttingDown() ? message(res, messages.unavailable) : next()));

  app.get('/', (_req, res) => {
    message(res, {
      status: 200,
      tone: 'info',
      title: 'Tierlink is running',
      message: 'Patreon tiers, kept in step with Discord roles.',
      next: 'Run /link in your Discord server to link your membership.',
    });
  });

  app.get('/link/:token', async (req, res) => {
    const url = await deps.linkService.follow(req.params.token);
    if (!url) return message(res, linkExpiredMessage('/link'));
    res.redirect(302, url);
  });

  app.get('/connect/choose', async (req, res) => {
    const completion = await deps.connectService.choose(typeof req.query.ticket === 'string' ? req.query.ticket : undefined);
    if (!completion) return message(res, linkExpiredMessage('/connect'));
    await renderConnect(res, completion);
  });

  app.get('/connect/:token', async (req, res) => {
    const url = await deps.connectService.follow(req.params.token);
    if (!url) return message(res, linkExpiredMessage('/connect'));
    res.redirect(302, url);
  });

  app.get('/oauth/callback', async (req, res) => {
    const q = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : undefined);
    const link = await deps.oneTimeLinks.consumeState(q('state'));
    const flow = link?.purpose === 'connect' ? '/connect' : '/link';
    if (q('error')) {
      // The state is consumed all the same: a denied authorization cannot be replayed with a code.
      deps.metrics.links.inc({ outcome: 'denied' });
      if (q('error') === 'access_denied') return message(res, consentDeniedMessage(flow));
      logger.warn({ error: q('error') }, 'the service answered the authorization with an error');
      return message(res, serviceDownMessage(flow));
    }
    if (!link || !q('code')) {
      logger.warn(
        { hasState: Boolean(q('state')), hasCode: Boolean(q('code')) },
        'oauth callback rejected: missing, forged or replayed state',
      );
      return message(res, badStateMessage(flow));
    }
    if (link.purpose === 'connect') return renderConnect(res, await deps.connectService.complete(q('code')!, link));

    const done = await deps.linkService.complete(q('code')!, link);
    if (done.kind === 'service_error') return message(res, serviceDownMessage('/link'));
    const [guildName, tiers] = await Promise.all([
      deps.guilds.name(done.guildId),
      deps.tierTitles.tiersOf(done.outcome.entitlements.map((e) => e.campaignId)),
    ]);
    const title = (campaignId: string, tierId: string) =>
      tiers.find((t) => t.campaignId === campaignId && t.id === tierId)?.title ?? tierId;
    sendPage(res, 200, renderLinkResult(linkResultView(done, guildName, title)));
  });

  async function renderConnect(res: Response, completion: ConnectCompletion): Promise<void> {
    switch (completion.kind) {
      case 'bound':
        return sendPage(res, 200, renderConnectResult(await deps.connectView(completion)));
      case 'choose':
        return sendPage(
          res,
          200,
          renderChooseCampaign({
            creatorName: completion.creatorName,
            guildName: await deps.guilds.name(completion.guildId),
            choices: completion.choices.map(({ details, chooseUrl }) => ({
              // A creator's campaigns share the creator's name: the vanity tells them apart.
              name:
                details.campaign.creatorName && details.campaign.vanity
                  ? `${details.campaign.creatorName} (${details.campaign.vanity})`
                  : (details.campaign.vanity ?? details.campaign.creatorName ?? `Campaign ${details.campaign.id}`),
              url: details.campaign.url,
              patronCount: details.campaign.patronCount,
              chooseUrl,
            })),
          }),
        );
      case 'no_campaign':
        return message(res, {
          status: 200,
          tone: 'warning',
          title: 'No campaign to connect',
          message: `${completion.creatorName} has no campaign on Patreon yet, so there are no tiers to sync.`,
          next: 'Create a campaign with tiers on Patreon, then run /connect again.',
        });
      case 'service_error':
        return message(res, serviceDownMessage('/connect'));
    }
  }

  app.use((_req, res) => message(res, messages.notFound));

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    logger.error({ err: error, url: redactUrl(req.url) }, 'request failed');
    if (res.headersSent) return;
    message(res, messages.failed);
  });

  return app;
}
