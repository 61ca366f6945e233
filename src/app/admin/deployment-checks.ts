import type { ApplicationInfo } from '../../edges/outbound/discord/application-info';
import type { DoctorCheck } from './doctor';
import { saidCheck, says } from './doctor-says';

/** How the creator tokens in the environment are configured (PATREON_CREATOR_ACCESS_TOKEN, DISCORD_GUILD_ID(S)). */
export interface EnvironmentBinding {
  /** The environment carries creator tokens. */
  tokens: boolean;
  /** DISCORD_GUILD_ID and DISCORD_GUILD_IDS: the only servers those tokens bind. */
  guildIds: readonly string[];
}

/**
 * `/doctor` in a server no campaign serves, while creator tokens sit in the environment: says why
 * they did not bind this server (they bind only the servers named), and how to change that.
 */
export function unboundServerCheck(guildId: string, binding: EnvironmentBinding | undefined): DoctorCheck {
  const base = saidCheck('Campaign', false, says('doctorSays.noCampaign'), says('doctorSays.noTokenFix'));
  if (!binding?.tokens || binding.guildIds.includes(guildId)) return base;
  return {
    name: base.name,
    ok: false,
    detail: `${base.detail}: the creator tokens in Tierlink’s environment bind only the servers named in DISCORD_GUILD_ID and DISCORD_GUILD_IDS, and this one (${guildId}) is not among them`,
    fix: `Run /connect and sign in as the creator, or add ${guildId} to DISCORD_GUILD_IDS and restart Tierlink.`,
  };
}

/**
 * Whether anyone can add the bot to their server (the application is public). Anyone who adds it
 * gets its commands and costs its requests; an operator who serves their own servers turns that off.
 * Nothing when Discord did not answer: a check that cannot be made is not a problem to fix.
 */
export async function botInviteCheck(application: ApplicationInfo): Promise<DoctorCheck[]> {
  let isPublic: boolean;
  try {
    isPublic = await application.botPublic();
  } catch {
    return [];
  }
  return [
    isPublic
      ? saidCheck('Who can add Tierlink', false, says('doctorSays.invitePublic'), says('doctorSays.invitePublicFix'))
      : saidCheck('Who can add Tierlink', true, says('doctorSays.inviteOwner'), null),
  ];
}
