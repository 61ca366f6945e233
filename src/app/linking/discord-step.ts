import type { DiscordUser } from '../../edges/outbound/discord/user-oauth';
import type { DiscordSignIn, SignInAnswer } from '../discord-sign-in';
import { STATE_LIFETIME_MS, type OneTimeLinks } from './one-time-links';

/** Discord's redirect URI of these sign-ins: `$PUBLIC_URL/discord/callback` (registered in the Developer Portal). */
export const DISCORD_CALLBACK_PATH = '/discord/callback';

/** What the page of a `/link` or `/connect` link asks Discord: only who the person is. */
export const FLOW_SIGN_IN_SCOPES = ['identify'] as const;

/** The flows whose links a Discord command hands out. */
export type FlowPurpose = 'link' | 'connect';

export type DiscordStepStart =
  /** To Discord's authorize page; the browser keeps `sealed` in a cookie named after `flowId`. */
  | { kind: 'sign_in'; authorizeUrl: string; sealed: string; flowId: string }
  /** Unknown, used (`used`) or expired: there is nothing to sign in for. */
  | { kind: 'expired'; used: boolean };

export type DiscordStepAnswer =
  | { kind: 'signed_in'; purpose: FlowPurpose; token: string; user: DiscordUser }
  | { kind: 'denied'; purpose: FlowPurpose }
  | { kind: 'discord_error'; purpose: FlowPurpose }
  | { kind: 'bad_state' };

interface Carried {
  purpose: FlowPurpose;
  token: string;
}

export function createDiscordStep(deps: {
  signIn: DiscordSignIn;
  oneTimeLinks: Pick<OneTimeLinks, 'isLive' | 'wasUsed'>;
  /** `$PUBLIC_URL/discord/callback`: Discord's redirect URI for these sign-ins. */
  redirectUri: () => string;
}): DiscordStep {
  return {
    async begin(purpose: FlowPurpose, token: string): Promise<DiscordStepStart> {
      if (!(await deps.oneTimeLinks.isLive(purpose, token)))
        return { kind: 'expired', used: await deps.oneTimeLinks.wasUsed(purpose, token) };
      const started = deps.signIn.begin<Carried>({
        kind: 'flow',
        scopes: FLOW_SIGN_IN_SCOPES,
        redirectUri: deps.redirectUri(),
        prompt: 'none',
        payload: { purpose, token },
        lifetimeMs: STATE_LIFETIME_MS,
      });
      return { kind: 'sign_in', ...started };
    },

    async finish(answer: SignInAnswer, sealed: string | undefined): Promise<DiscordStepAnswer> {
      const outcome = await deps.signIn.finish<Carried, Extract<DiscordStepAnswer, { kind: 'signed_in' }>>({
        kind: 'flow',
        answer,
        sealed,
        redirectUri: deps.redirectUri(),
        // The token is dropped, not revoked: revoking would end the person's authorization, and
        // Discord would show its page at every link (docs/sign-in-and-role-authority.md).
        keepAuthorization: true,
        then: async ({ user, payload }) => ({ kind: 'signed_in', purpose: payload.purpose, token: payload.token, user }),
      });
      if (outcome.kind === 'denied' || outcome.kind === 'discord_error') return { kind: outcome.kind, purpose: outcome.payload.purpose };
      return outcome;
    },
  };
}

/**
 * The first step of following a `/link` or `/connect` link: sign in with Discord in this browser
 * (`identify`, `prompt=none`: no page for someone who already authorized it), so that the flow
 * goes on only for the Discord account that ran the command (the services compare the two when
 * they follow the link). A link forwarded to someone else, opened in their browser, signs *them*
 * in, and ends on a refusal before the service's consent page. The link is used only after that
 * step, so a person who cancels on Discord's page can press the button again.
 */
export interface DiscordStep {
  begin(purpose: FlowPurpose, token: string): Promise<DiscordStepStart>;
  /** Discord's answer, in the browser whose sealed cookie is `sealed`. */
  finish(answer: SignInAnswer, sealed: string | undefined): Promise<DiscordStepAnswer>;
}
