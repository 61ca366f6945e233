import type { MemberPreferenceRepository, MemberPreferences } from '../../edges/outbound/store/repositories/member-preference-repository';
import type { Clock } from '../../shared/clock';

export type { MemberPreferences };

/** Members whose language this process remembers having written. */
const NOTED_MAX = 10_000;

/**
 * A person's own choices wherever Tierlink serves them (`/privacy`): whether announcements may name
 * them, and whether Tierlink may send them direct messages about their membership. Anyone may make
 * them for themselves, and only for themselves.
 */
export function createPrivacy(deps: {
  memberPreferences: Pick<MemberPreferenceRepository, 'of' | 'set' | 'noteLocale'>;
  clock: Clock;
}): Privacy {
  /** The languages written lately, so that a member's every command does not write one again (bounded). */
  const noted = new Map<string, string>();
  return {
    async noteLocale(discordUserId: string, locale: string): Promise<void> {
      if (noted.get(discordUserId) === locale) return;
      await deps.memberPreferences.noteLocale(discordUserId, locale, deps.clock.now());
      if (noted.size >= NOTED_MAX) noted.clear();
      noted.set(discordUserId, locale);
    },
    of: (discordUserId: string): Promise<MemberPreferences> => deps.memberPreferences.of(discordUserId),
    set: (discordUserId: string, change: Partial<MemberPreferences>): Promise<MemberPreferences> =>
      deps.memberPreferences.set(discordUserId, change, deps.clock.now()),
  };
}

/**
 * A person's own choices wherever Tierlink serves them (`/privacy`): whether announcements may name
 * them, and whether Tierlink may send them direct messages about their membership. Anyone may make
 * them for themselves, and only for themselves.
 */
export interface Privacy {
  /**
   * Their Discord client's language at a command (`interaction.locale`): their direct messages are
   * written in it. Written when it changed since this process last wrote it.
   */
  noteLocale(discordUserId: string, locale: string): Promise<void>;
  of(discordUserId: string): Promise<MemberPreferences>;
  set(discordUserId: string, change: Partial<MemberPreferences>): Promise<MemberPreferences>;
}
