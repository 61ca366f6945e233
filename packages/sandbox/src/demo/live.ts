import type { RoleEvent } from '../discord';
import type { Timeline } from './timeline';
import type { DemoService, StandIns } from './world';

export interface LiveOptions {
  timeline: Timeline;
  world: StandIns;
  service: DemoService;
  logFile: string;
  /** A terminal: Enter prints a fresh link page. */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
}

export interface Live {
  stop(): void;
}

/**
 * After the story: the service keeps running; print a fresh `/link` page for a browser and a short
 * "try it" list, then every role change on the Discord stand-in as it happens, until stopped.
 */
export async function startLive(options: LiveOptions): Promise<Live> {
  const { timeline, world, service } = options;
  const { discord, patreon, guildId } = world;
  const roleNames = new Map(discord.guild(guildId).roles.map((r) => [r.id, r.name] as const));
  const userNames = new Map<string, string>([
    [world.ada.discordId, world.ada.name],
    [world.you.discordId, world.you.name],
  ]);
  const who = (userId: string): string => {
    const known = userNames.get(userId);
    if (known) return known;
    const [member] = discord.members(guildId, { after: (BigInt(userId) - 1n).toString(), limit: 1 });
    return member?.userId === userId ? member.username : userId;
  };

  const freshLink = async (): Promise<string> => {
    const reply = await service.command(world.you.discordId, 'link');
    const url = reply.urls[0];
    if (!url) throw new Error(`/link answered without a link: ${reply.content}`);
    return url;
  };

  const say = (text = '') => timeline.say(text);
  const bold = (text: string) => (timeline.color ? `\u001b[1m${text}\u001b[0m` : text);
  const json = (body: Record<string, unknown>) => `'${JSON.stringify(body)}'`;

  const link = await freshLink();
  say();
  say(bold('Tierlink keeps running. Ctrl-C stops everything and removes the temporary folder.'));
  say();
  say(`  Link page (for the Discord member “${world.you.name}”; one use, 15 minutes):`);
  say(`    ${bold(link)}`);
  say(`    On Discord’s page, log in as ${world.you.name} (${world.you.discordId}), who ran /link.`);
  say(`    On the consent page, log in as ${world.bea.name} (${world.bea.patreonUserId}), a Gold patron who has not linked yet.`);
  if (options.input?.isTTY) say('    Press Enter for a fresh link page.');
  say();
  if (service.dashboardUrl) {
    say(`  Dashboard: ${bold(service.dashboardUrl)}`);
    say(`    Sign in with Discord; on the consent page, log in as ${world.owner.name} (${world.owner.discordId}), the server’s owner.`);
    say();
  }
  say('  Try it:');
  say(`    • Move ${world.bea.name} to Platinum (after linking) and watch the role follow:`);
  say(
    `        curl -X PUT ${patreon.url}/__sandbox/memberships -H 'content-type: application/json' -d ${json({
      userId: world.bea.patreonUserId,
      patronStatus: 'active_patron',
      tierIds: [world.tiers.platinum],
      trigger: 'members:pledge:update',
    })}`,
  );
  say(`    • Roles of “${world.you.name}”:  curl ${discord.baseUrl}/__sandbox/guilds/${guildId}/members/${world.you.discordId}/roles`);
  say(`    • Health and metrics:    ${service.url}/healthz   ${service.url}/metrics`);
  say(`    • The service’s log:     tail -f ${options.logFile}`);
  say();
  say('  Role changes on Discord show up here as they happen:');

  let seen = discord.roleEvents().length;
  const show = (e: RoleEvent) => {
    const at = e.at.toISOString().slice(11, 19);
    say(
      `    ${at}  ${e.op === 'add' ? '+' : '−'} ${roleNames.get(e.roleId) ?? e.roleId} ${e.op === 'add' ? 'to' : 'from'} ${who(e.userId)}  (${e.via === 'hand' ? 'by hand' : (e.reason ?? 'no reason')})`,
    );
  };
  const timer = setInterval(() => {
    const all = discord.roleEvents();
    for (const e of all.slice(seen)) show(e);
    seen = all.length;
  }, 250);

  const onData = () => {
    freshLink().then(
      (url) => say(`  Fresh link page: ${bold(url)}`),
      (error: unknown) => say(`  No fresh link: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
  const input = options.input?.isTTY ? options.input : undefined;
  input?.on('data', onData);

  return {
    stop() {
      clearInterval(timer);
      if (input) {
        input.off('data', onData);
        input.pause();
      }
    },
  };
}
