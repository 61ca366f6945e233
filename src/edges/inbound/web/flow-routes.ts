import express, { type Request, type Response, type Router } from 'express';
import type { ConnectCompletion, ConnectNotAllowed, ConnectService } from '../../../app/admin/connect-service';
import { signInFlowOf } from '../../../app/discord-sign-in';
import { DISCORD_CALLBACK_PATH, type DiscordStep, type FlowPurpose } from '../../../app/linking/discord-step';
import type { LinkService } from '../../../app/linking/link-service';
import { CHOICE_LIFETIME_MS, type OneTimeLinks, STATE_LIFETIME_MS } from '../../../app/linking/one-time-links';
import type { Metrics } from '../../outbound/observability/metrics';
import type { Logger } from '../../../shared/logger';
import type { FlowCookies } from './flow-cookies';
import { type JoinRoutesDeps, createJoinRoutes, isJoinState } from './join-routes';
import { linkResultView } from './link-result-view';
import type { GuildNames, TierTitles } from './page-sources';
import {
  badStateMessage,
  choiceRefusedMessage,
  chooseByFormMessage,
  connectNotAllowedMessage,
  consentDeniedMessage,
  discordDeniedMessage,
  discordDownMessage,
  linkExpiredMessage,
  madeForSomeoneElseMessage,
  otherBrowserMessage,
  renderChooseCampaign,
  renderConnectResult,
  renderLinkResult,
  serviceDownMessage,
} from './pages';
import type { ConnectResultView, MessageView } from './pages/views';
import { localeOf, tOf } from './page-language';
import type { Locale, T } from '../../../core/i18n';
import { speech } from './pages/speech';

/** Where the campaign chooser posts its choice. */
export const CHOOSE_PATH = '/connect/choose';

const COMMAND = { link: '/link', connect: '/connect' } as const;

export interface FlowRoutesDeps {
  logger: Logger;
  metrics: Metrics;
  oneTimeLinks: OneTimeLinks;
  linkService: LinkService;
  connectService: ConnectService;
  /** The Discord sign-in that opens a `/link` or `/connect` link (src/app/linking/discord-step.ts). */
  discordStep: DiscordStep;
  guilds: GuildNames;
  tierTitles: TierTitles;
  cookies: FlowCookies;
  /** The `/connect` result page's view, in the reader's language (`t`). */
  connectView(completion: Extract<ConnectCompletion, { kind: 'bound' }>, t: T): Promise<ConnectResultView>;
  /** The join pages (src/app/joining); their flows share the service's callback with `/link` and `/connect`. */
  joining: JoinRoutesDeps['joining'];
  sendPage(res: Response, status: number, html: string): void;
  /** A one-message page in the request's language (`locale` when the view's texts are in another). */
  message(res: Response, view: MessageView, locale?: Locale): void;
}

/**
 * The browser flows of `/link`, `/connect` and the join page (docs/contract.md, HTTP routes): a
 * one-time link's page signs the person in with Discord first (`/discord/callback` is Discord's
 * answer), and goes on only for the account that ran the command; that sets the flow's cookie and
 * redirects to the service's consent page; the service's callback acts only in the browser holding
 * that cookie; the campaign chooser acts on a POST from its own page, once.
 */
export function createFlowRoutes(deps: FlowRoutesDeps): Router {
  const { logger, cookies, sendPage, message } = deps;
  const router = express.Router();
  const join = createJoinRoutes(deps);
  router.use(join.router);

  /** A link's page: first Discord's sign-in (who is following it), in this browser. */
  async function signInFor(purpose: FlowPurpose, req: Request, res: Response): Promise<void> {
    const token = typeof req.params.token === 'string' ? req.params.token : '';
    const started = await deps.discordStep.begin(purpose, token);
    if (started.kind === 'expired') return message(res, linkExpiredMessage(COMMAND[purpose], tOf(res), started.used));
    cookies.setSignIn(res, started.flowId, started.sealed, STATE_LIFETIME_MS);
    res.set('Cache-Control', 'no-store').redirect(302, started.authorizeUrl);
  }

  router.get('/link/:token', (req, res) => signInFor('link', req, res));

  router.get(DISCORD_CALLBACK_PATH, async (req, res) => {
    const q = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string).slice(0, 2048) : undefined);
    const flowId = signInFlowOf(q('state'));
    const sealed = flowId ? cookies.readSignIn(req, flowId) : undefined;
    if (flowId) cookies.clearSignIn(res, flowId);
    const answer = await deps.discordStep.finish({ code: q('code'), state: q('state'), error: q('error') }, sealed);
    if (answer.kind === 'bad_state') return message(res, badStateMessage(null, tOf(res)));
    const command = COMMAND[answer.purpose];
    if (answer.kind === 'denied') return message(res, discordDeniedMessage(command, tOf(res)));
    if (answer.kind === 'discord_error') return message(res, discordDownMessage(command, tOf(res)));
    const followed =
      answer.purpose === 'link'
        ? await deps.linkService.follow(answer.token, answer.user)
        : await deps.connectService.follow(answer.token, answer.user);
    switch (followed.kind) {
      case 'expired':
        return message(res, linkExpiredMessage(command, tOf(res)));
      case 'someone_else':
        return message(res, madeForSomeoneElseMessage(command, followed.signedInAs, tOf(res)));
      case 'not_allowed':
        return message(res, connectNotAllowedMessage(tOf(res)));
      case 'redirect':
        cookies.set(res, followed.browser, STATE_LIFETIME_MS);
        return void res.set('Cache-Control', 'no-store').redirect(302, followed.url);
    }
  });

  router.get(CHOOSE_PATH, (_req, res) => {
    res.set('Allow', 'POST');
    message(res, chooseByFormMessage(tOf(res)));
  });

  router.post(CHOOSE_PATH, express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 }), async (req: Request, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const field = (name: string) => (typeof body[name] === 'string' ? body[name] : undefined);
    const completion = await deps.connectService.choose(field('ticket'), field('csrf'), cookies.reader(req));
    if (completion.kind === 'choice_refused') {
      logger.warn({ reason: completion.reason }, 'campaign choice refused');
      return message(res, choiceRefusedMessage(completion.reason, tOf(res)));
    }
    await renderConnect(req, res, completion);
  });

  router.get('/connect/:token', (req, res) => signInFor('connect', req, res));

  router.get('/oauth/callback', async (req, res) => {
    const q = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : undefined);
    const consumed = await deps.oneTimeLinks.consumeState(q('state'), cookies.reader(req));
    if (isJoinState(consumed)) return join.serviceCallback(req, res, consumed);
    if (consumed.kind === 'unbound') {
      // A valid state in a browser that did not start its flow: a forwarded consent page. The
      // state is spent; nothing is exchanged, linked or granted.
      deps.metrics.links.inc({ outcome: 'other_browser' });
      logger.warn({ purpose: consumed.purpose }, 'oauth callback refused: the state belongs to another browser');
      cookies.clear(res, consumed.flowId);
      return message(res, otherBrowserMessage(consumed.purpose === 'connect' ? '/connect' : '/link', tOf(res)));
    }
    const flow = consumed.kind === 'consumed' && consumed.row.purpose === 'connect' ? '/connect' : '/link';
    if (consumed.kind === 'consumed' && (consumed.row.purpose === 'link' || q('error'))) cookies.clear(res, consumed.flow.flowId);
    if (q('error')) {
      // The state is consumed all the same: a denied authorization cannot be replayed with a code.
      deps.metrics.links.inc({ outcome: 'denied' });
      if (q('error') === 'access_denied') return message(res, consentDeniedMessage(flow, tOf(res)));
      logger.warn({ error: q('error')?.slice(0, 100) }, 'the service answered the authorization with an error');
      return message(res, serviceDownMessage(flow, tOf(res)));
    }
    if (consumed.kind !== 'consumed' || !q('code')) {
      logger.warn(
        { hasState: Boolean(q('state')), hasCode: Boolean(q('code')) },
        'oauth callback rejected: missing, forged or replayed state',
      );
      return message(res, badStateMessage(flow, tOf(res)));
    }
    if (consumed.row.purpose === 'connect') return renderConnect(req, res, await deps.connectService.complete(q('code')!, consumed));

    const done = await deps.linkService.complete(q('code')!, consumed, localeOf(res));
    if (done.kind === 'service_error') return message(res, serviceDownMessage('/link', tOf(res)));
    const [guildName, tiers] = await Promise.all([
      deps.guilds.name(done.guildId),
      deps.tierTitles.tiersOf(done.outcome.entitlements.map((e) => e.campaignId)),
    ]);
    const title = (campaignId: string, tierId: string) =>
      tiers.find((t) => t.campaignId === campaignId && t.id === tierId)?.title ?? tierId;
    sendPage(res, 200, renderLinkResult(linkResultView(done, guildName, title, tOf(res)), speech(localeOf(res))));
  });

  async function renderConnect(req: Request, res: Response, completion: ConnectCompletion | ConnectNotAllowed): Promise<void> {
    switch (completion.kind) {
      case 'not_allowed':
        clearFlowOf(req, res);
        return message(res, connectNotAllowedMessage(tOf(res)));
      case 'bound':
        clearFlowOf(req, res);
        return sendPage(res, 200, renderConnectResult(await deps.connectView(completion, tOf(res)), speech(localeOf(res))));
      case 'choose': {
        // The chooser's tickets need this browser's cookie: keep it as long as they last.
        const nonce = cookies.reader(req)(completion.flowId);
        if (nonce) cookies.set(res, { flowId: completion.flowId, nonce }, CHOICE_LIFETIME_MS);
        return sendPage(
          res,
          200,
          renderChooseCampaign(
            {
              creatorName: completion.creatorName,
              guildName: await deps.guilds.name(completion.guildId),
              action: CHOOSE_PATH,
              csrf: completion.csrf,
              choices: completion.choices.map(({ details, ticket }) => ({
                // A creator's campaigns share the creator's name: the vanity tells them apart.
                name:
                  details.campaign.creatorName && details.campaign.vanity
                    ? `${details.campaign.creatorName} (${details.campaign.vanity})`
                    : (details.campaign.vanity ??
                      details.campaign.creatorName ??
                      tOf(res)('connectPage.campaignNumbered', { id: details.campaign.id })),
                url: details.campaign.url,
                patronCount: details.campaign.patronCount,
                ticket,
              })),
            },
            speech(localeOf(res)),
          ),
        );
      }
      case 'no_campaign':
        clearFlowOf(req, res);
        return message(res, {
          status: 200,
          tone: 'warning',
          title: tOf(res)('connectPage.noCampaignTitle'),
          message: tOf(res)('connectPage.noCampaignMessage', { creator: completion.creatorName }),
          next: tOf(res)('connectPage.noCampaignNext'),
        });
      case 'service_error':
        return message(res, serviceDownMessage('/connect', tOf(res)));
    }
  }

  /** The flow is over: its cookie goes (the state's flow on the callback, the ticket's on the chooser). */
  function clearFlowOf(req: Request, res: Response): void {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const value = typeof req.query.state === 'string' ? req.query.state : typeof body.ticket === 'string' ? body.ticket : undefined;
    const flowId = deps.oneTimeLinks.flowOf(value);
    if (flowId) cookies.clear(res, flowId);
  }

  return router;
}
