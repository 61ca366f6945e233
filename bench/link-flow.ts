import { performance } from 'node:perf_hooks';
import type { TierlinkStack } from './tierlink-stack';

/**
 * A patron's `/link` the way their browser runs it, against a bench/tierlink-stack.ts stack: `/link`
 * is injected, the button's URL is followed, the stand-in's consent page is approved; the callback
 * is sent apart ({@link sendCallback}), so that a benchmark times it alone.
 */

type Stack = Pick<TierlinkStack<string>, 'patreon' | 'discord' | 'guildId'>;

export interface PreparedLink {
  discordUserId: string;
  /** The callback URL the consent page sent the browser to, not requested yet. */
  callback: string;
  /** The flow's cookie the link set, as the browser sends it back. */
  cookie: string;
  /** The patron's own address (see {@link linkUpToCallback}). */
  address: Record<string, string>;
  /** From the interaction's dispatch to the bot's reply (Discord allows 3 s). */
  replyMs: number;
}

/** `n` numbers the patron (its address); the member and the service user exist already. */
export async function linkUpToCallback(
  stack: Stack,
  patron: { n: number; discordUserId: string; patreonUserId: string },
): Promise<PreparedLink> {
  const { patreon, discord, guildId } = stack;
  const injected = performance.now();
  const { interactionId } = discord.injectCommand({ guildId, userId: patron.discordUserId, name: 'link', memberPermissions: 0n });
  const reply = await discord.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 10_000 });
  const replyMs = performance.now() - injected;
  const rows = (reply.data?.components as Array<{ components?: Array<{ url?: string }> }> | undefined) ?? [];
  const button = rows.flatMap((r) => r.components ?? []).find((c) => c.url)?.url;
  if (!button) throw new Error(`no button in the /link reply: ${JSON.stringify(reply.data)}`);

  // Each patron from an address of their own, as through a proxy (Tierlink trusts a loopback proxy's
  // X-Forwarded-For): the per-address limits of /link and /oauth/callback are for one person, not for a bench.
  const n = patron.n;
  const address = { 'x-forwarded-for': `198.18.${Math.floor(n / 250) + 1}.${(n % 250) + 1}` };
  // The button's page signs the patron in with Discord first; Discord's answer sets the flow's cookie.
  const signIn = await fetch(button, { redirect: 'manual', headers: address });
  await signIn.arrayBuffer();
  const toDiscord = signIn.headers.get('location');
  if (signIn.status !== 302 || !toDiscord) throw new Error(`following the link answered ${signIn.status}`);
  const cookieOf = (res: Response) =>
    res.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
  const follow = await fetch(await discord.approveAuthorization(toDiscord, patron.discordUserId), {
    redirect: 'manual',
    headers: { cookie: cookieOf(signIn), ...address },
  });
  await follow.arrayBuffer();
  const authorizeUrl = follow.headers.get('location');
  if (follow.status !== 302 || !authorizeUrl) throw new Error(`Discord's sign-in answered ${follow.status}`);
  const callback = await patreon.approveAuthorization(authorizeUrl, patron.patreonUserId);
  const cookie = cookieOf(follow)
    .split('; ')
    .filter((c) => c.startsWith('tierlink_flow_'))
    .join('; ');
  return { discordUserId: patron.discordUserId, callback, cookie, address, replyMs };
}

/**
 * Requests a prepared link's callback as the patron's browser; resolves with callback → `roleId` on
 * the member in the Discord stand-in (a waiter on its state, armed before the request is sent) and
 * callback → the result page's last byte, in ms.
 */
export async function sendCallback(
  stack: Stack,
  link: PreparedLink,
  roleId: string,
  timeoutMs: number,
): Promise<{ roleMs: number; pageMs: number }> {
  const sent = performance.now();
  const role = stack.discord
    .waitForMemberRole(stack.guildId, link.discordUserId, roleId, { present: true, timeoutMs })
    .then(() => performance.now());
  const res = await fetch(link.callback, { redirect: 'manual', headers: { cookie: link.cookie, ...link.address } });
  await res.arrayBuffer();
  const pageAt = performance.now();
  if (res.status !== 200) throw new Error(`the callback answered ${res.status}`);
  const roleAt = await role;
  return { roleMs: roleAt - sent, pageMs: pageAt - sent };
}
