import type { Locale } from '../../../core/i18n';
import type { ActorAuthority } from '../../../app/admin/actor-authority';
import type { AdoptionCheck } from '../../../app/admin/adoption-check';
import type { RoleAllowances } from '../../../app/admin/role-allowances';
import type { MappingService } from '../../../app/admin/mapping-service';
import type { SettingsService } from '../../../app/admin/settings-service';
import type { ChangeConfirmations } from '../../../app/admin/change-confirmations';
import type { TiersService } from '../../../app/admin/tiers-service';
import type { ConnectService } from '../../../app/admin/connect-service';
import type { LinkService } from '../../../app/linking/link-service';
import type { StatusService } from '../../../app/linking/status-service';
import type { AuditBrowser } from '../../../app/dashboard/audit';
import type { GuildPermissions } from '../../../app/guild-permissions';
import type { CompService } from '../../../app/comps/comp-service';
import type { RuleRolesService } from '../../../app/admin/rule-roles-service';
import type { Privacy } from '../../../app/membership/privacy';

/** What `/sync` needs: one run over a guild, reported as text for Discord. */
export interface SyncPort {
  /** In `locale`, English when absent. */
  runForGuild(guildId: string, options: { dryRun: boolean; force: boolean; adopt: boolean }, locale?: Locale): Promise<string>;
}

/** What `/doctor` needs: every check over a guild, reported as text for Discord. */
export interface DoctorPort {
  /** In `locale`, English when absent. */
  report(guildId: string, locale?: Locale): Promise<string>;
}

/** The services slash commands call; commands never touch the database or the APIs directly. */
export interface BotServices {
  /** Guild-level permissions of the member who asks, read from Discord. */
  authority: Pick<ActorAuthority, 'holds'>;
  link: LinkService;
  connect: ConnectService;
  status: StatusService;
  tiers: TiersService;
  mapping: MappingService;
  /** Roles by tenure and amount (`/settings rule_role`). */
  rules: Pick<RuleRolesService, 'set' | 'remove' | 'list'>;
  /** `/comp`: tiers given by staff for a while. */
  comps: Pick<CompService, 'grant' | 'revoke' | 'list'>;
  settings: SettingsService;
  /** Confirm and Cancel of a `/map`, `/unmap` or `/settings` change shown first. */
  confirmations: ChangeConfirmations;
  sync: SyncPort;
  /** Allowances of roles with dangerous permissions (`/allow-role`). */
  allowances: Pick<RoleAllowances, 'set'>;
  /** Whether the member who asks may have Tierlink adopt the tier roles (`/sync adopt:true`). */
  adoption: Pick<AdoptionCheck, 'check'>;
  doctor: DoctorPort;
  /** Guild-level permission checks of the staff commands (`/status member`, `/audit`). */
  staff: Pick<GuildPermissions, 'canManageRoles'>;
  /** A member's role changes (`/audit`). */
  audit: Pick<AuditBrowser, 'page'>;
  /** Each person's own choices (`/privacy`), and their language for direct messages. */
  privacy: Pick<Privacy, 'of' | 'set' | 'noteLocale'>;
  /** Ko-fi, with KOFI_VERIFICATION_TOKEN: `/link source:Ko-fi` gives a one-time code for a Ko-fi payment's message. */
  kofi?: KofiLinkPort | null;
}

/** `/link source:Ko-fi` (src/edges/outbound/kofi/kofi-payments.ts, docs/kofi.md). */
export interface KofiLinkPort {
  linkCode(discordUserId: string, guildId: string): Promise<{ kind: 'code'; code: string; expiresAt: Date } | { kind: 'too_many' }>;
  /** `/settings kofi_donation:`: a Ko-fi donation of at least X grants `kofi:*donation` for N days; null: off. */
  setDonation(guildId: string, setting: { minCents: number; days: number } | null): Promise<unknown>;
}
