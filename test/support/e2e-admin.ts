import { PermissionFlagsBits } from 'discord.js';
import { Browser } from './browser';
import { type CommandReply, type E2E, readReply } from './e2e';

/** Permission sets a member may hold when running a command. */
export const MANAGE_ROLES = PermissionFlagsBits.ManageRoles;
export const MANAGE_GUILD = PermissionFlagsBits.ManageGuild;
/** What an ordinary member holds (View Channel, Send Messages, Use Application Commands). */
export const EVERYONE = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages | PermissionFlagsBits.UseApplicationCommands;

export const tierOption = (value: string) => ({ name: 'tier', type: 3, value });
export const roleOption = (name: string, roleId: string) => ({ name, type: 8, value: roleId });
export const intOption = (name: string, value: number) => ({ name, type: 4, value });
export const boolOption = (name: string, value: boolean) => ({ name, type: 5, value });
export const stringOption = (name: string, value: string) => ({ name, type: 3, value });
export const userOption = (name: string, userId: string) => ({ name, type: 6, value: userId });

export interface RunningCommand {
  interactionId: string;
  /** The latest reply once the command answered (after any "…" progress edits that came at once). */
  reply(): Promise<CommandReply>;
  /** Waits for a reply whose content matches, e.g. the "Updated: …" edit after a background reconcile. */
  until(pattern: RegExp, timeoutMs?: number): Promise<CommandReply>;
  /** Every content the creator saw, in order (deferral excluded). */
  contents(): string[];
}

function toReply(record: { data: Record<string, unknown> | null } | undefined, ephemeral: boolean): CommandReply {
  return { ...readReply(record?.data ?? null), ephemeral };
}

/**
 * Runs a slash command in any guild of the sandbox (the e2e helper runs in its one guild). Like
 * Discord, it refuses a command that is not registered for that guild or globally: a test cannot
 * use a command a real member could not see.
 */
export function runCommand(
  e: E2E,
  options: {
    guildId?: string;
    userId: string;
    name: string;
    options?: Array<Record<string, unknown>>;
    /** The channel-level permissions the interaction carries (never what Tierlink decides on); null: as Discord computes them. */
    memberPermissions?: bigint | null;
    /** Where the command is used; the guild's first channel when absent. */
    channelId?: string;
    /** The subcommand (`/comp grant`), its options in `options`. */
    subcommand?: string;
    /** The member's Discord language (`interaction.locale`); `en-US` when absent. */
    locale?: string;
  },
): RunningCommand {
  const guildId = options.guildId ?? e.guildId;
  const registered = [...e.discord.commands(guildId), ...e.discord.commands()].some((c) => c.name === options.name);
  if (!registered) throw new Error(`/${options.name} is not registered for guild ${guildId} or globally`);
  const { interactionId } = e.discord.injectCommand({
    guildId,
    userId: options.userId,
    name: options.name,
    options: options.options ?? [],
    // null: the stand-in computes them as Discord does (roles, then the channel's overwrites).
    ...(options.memberPermissions === null ? {} : { memberPermissions: options.memberPermissions ?? 0n }),
    ...(options.channelId ? { channelId: options.channelId } : {}),
    ...(options.subcommand ? { subcommand: options.subcommand } : {}),
    ...(options.locale ? { locale: options.locale } : {}),
  });
  return following(e, interactionId);
}

/** Reading the replies of one interaction (a command or a button press) as they come. */
function following(e: E2E, interactionId: string): RunningCommand {
  const latest = (): CommandReply => {
    const all = e.discord.interactionResponses(interactionId);
    const shown = all.filter((r) => !r.deferred);
    return toReply(
      shown.at(-1),
      all.some((r) => r.ephemeral),
    );
  };
  return {
    interactionId,
    async reply() {
      await e.discord.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 10_000 });
      await new Promise((r) => setTimeout(r, 0));
      return latest();
    },
    async until(pattern, timeoutMs = 10_000) {
      await e.discord.waitForInteractionResponse(interactionId, {
        final: true,
        timeoutMs,
        where: (r) => typeof r.data?.content === 'string' && pattern.test(r.data.content),
      });
      return latest();
    },
    contents() {
      return e.discord
        .interactionResponses(interactionId)
        .filter((r) => !r.deferred)
        .map((r) => (typeof r.data?.content === 'string' ? r.data.content : ''));
    },
  };
}

/**
 * Presses the button labelled `label` on the latest reply of `on` (as `userId`, the command's user
 * when absent), through the sandbox as Discord delivers it; the press's own replies edit that message.
 */
export async function pressButton(e: E2E, on: RunningCommand, label: string, userId?: string): Promise<RunningCommand> {
  const reply = await on.reply();
  const button = reply.buttons.find((b) => b.label === label);
  if (!button) throw new Error(`no button "${label}" on the reply: ${reply.content}`);
  const { interactionId } = e.discord.pressButton({
    interactionId: on.interactionId,
    customId: button.customId,
    ...(userId ? { userId } : {}),
  });
  return following(e, interactionId);
}

/** Autocomplete in any guild: the choices offered while `focused` is typed. */
export async function autocompleteIn(
  e: E2E,
  options: {
    guildId: string;
    userId: string;
    name: string;
    options: Array<Record<string, unknown>>;
    focused: string;
    memberPermissions?: bigint;
  },
): Promise<Array<{ name: string; value: string }>> {
  const { interactionId } = e.discord.injectCommand({ ...options, memberPermissions: options.memberPermissions ?? MANAGE_ROLES });
  const response = await e.discord.waitForInteractionResponse(interactionId, { timeoutMs: 10_000 });
  return ((response.data?.choices as Array<{ name: string; value: string }> | undefined) ?? []).map((c) => ({
    name: c.name,
    value: c.value,
  }));
}

/** `/connect` as `userId` in `guildId` → authorize as the sandbox creator → callback: the result page. */
export async function connectIn(e: E2E, guildId: string, userId: string): Promise<{ status: number; html: string }> {
  const reply = await runCommand(e, { guildId, userId, name: 'connect', memberPermissions: MANAGE_GUILD }).reply();
  const button = reply.urls[0];
  if (!button) throw new Error(`no link button in the /connect reply: ${reply.content}`);
  const browser = new Browser();
  const step = await e.followToService(browser, button, userId);
  if (step.kind === 'page') throw new Error(`the /connect link answered ${step.status}`);
  const callback = await e.patreon.approveAuthorization(step.url, e.patreon.creatorUserId);
  const page = await browser.get(callback);
  return { status: page.status, html: await page.text() };
}

/** A patron of the sandbox campaign on `tierId`, paid today, with no webhook delivery. */
export function activePatron(e: E2E, fullName: string, tierIds: string[]): { id: string } {
  const user = e.patreon.createUser({ fullName });
  e.patreon.setMembership(
    user.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds, lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { deliver: false },
  );
  return user;
}

/** Waits until the bot has seen a guild created after start (GUILD_CREATE stored it). */
export async function waitForGuildKnown(e: E2E, guildId: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await e.tierlink.services.repos.guilds.name(guildId)) === null) {
    if (Date.now() > deadline) throw new Error(`the bot never saw guild ${guildId}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `/unlink` as `userId`, confirmed with its button: the reply after the press. */
export async function unlinkConfirmed(e: E2E, userId: string): Promise<CommandReply> {
  const asked = runCommand(e, { userId, name: 'unlink', memberPermissions: null });
  const first = await asked.reply();
  if (!first.buttons.some((b) => b.label === 'Unlink')) return first;
  return (await pressButton(e, asked, 'Unlink')).reply();
}

/**
 * The campaign's webhook stops carrying new posts (its triggers changed by hand on the service,
 * with the creator's token, as a creator's own tool would), and Tierlink's stored copy says so:
 * the campaign's posts are then polled.
 */
export async function webhookWithoutPosts(e: E2E): Promise<void> {
  const [remote] = e.patreon.webhooks();
  const [stored] = await e.tierlink.services.repos.webhooks.forCampaign(e.patreon.campaignId);
  if (!remote || !stored) throw new Error('the campaign has no webhook');
  const triggers = ['members:create', 'members:update', 'members:delete'];
  const response = await fetch(`${e.patreon.url}/api/oauth2/v2/webhooks/${remote.id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${e.patreon.creatorTokens.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ data: { id: remote.id, type: 'webhook', attributes: { triggers } } }),
  });
  if (!response.ok) throw new Error(`PATCH webhook: ${response.status} ${await response.text()}`);
  await e.tierlink.services.repos.webhooks.upsert(
    {
      id: stored.id,
      campaignId: e.patreon.campaignId,
      uri: stored.uri,
      triggers,
      secret: remote.secret,
      paused: false,
      numConsecutiveTimesFailed: 0,
      lastAttemptedAt: null,
    },
    e.clock.now(),
  );
}

/**
 * A new channel where the bot's role is allowed `allow`, chosen by the owner with `/settings`
 * `option` (`mod_log_channel`, `announce_patrons_channel`, `announce_posts_channel`): the channel
 * and /settings' reply.
 */
export async function settingsChannel(
  e: E2E,
  option: 'mod_log_channel' | 'announce_patrons_channel' | 'announce_posts_channel',
  name: string,
  allow: bigint,
): Promise<{ channelId: string; reply: CommandReply }> {
  const botRoleId = e.discord.guild(e.guildId).botRoleId;
  const channelId = e.discord.createChannel(e.guildId, { name, overwrites: [{ id: botRoleId, type: 'role', allow }] }).id;
  const reply = await runCommand(e, {
    userId: e.ownerId,
    name: 'settings',
    options: [{ name: option, type: 7, value: channelId }],
    memberPermissions: MANAGE_ROLES,
  }).reply();
  return { channelId, reply };
}
