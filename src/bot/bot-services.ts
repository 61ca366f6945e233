import type { MappingService } from '../admin/mapping-service';
import type { SettingsService } from '../admin/settings-service';
import type { TiersService } from '../admin/tiers-service';
import type { GuildRepository } from '../db/repositories/guild-repository';
import type { ConnectService } from '../linking/connect-service';
import type { LinkService } from '../linking/link-service';
import type { StatusService } from '../linking/status-service';

/** What `/sync` needs: one run over a guild, reported as text for Discord. */
export interface SyncPort {
  runForGuild(guildId: string, options: { dryRun: boolean; force: boolean }): Promise<string>;
}

/** What `/doctor` needs: every check over a guild, reported as text for Discord. */
export interface DoctorPort {
  report(guildId: string): Promise<string>;
}

/** The services slash commands call; commands never touch the database or the APIs directly. */
export interface BotServices {
  guilds: GuildRepository;
  link: LinkService;
  connect: ConnectService;
  status: StatusService;
  tiers: TiersService;
  mapping: MappingService;
  settings: SettingsService;
  sync: SyncPort;
  doctor: DoctorPort;
}
