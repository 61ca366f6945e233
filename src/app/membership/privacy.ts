import type { MemberPreferenceRepository, MemberPreferences } from '../../edges/outbound/store/repositories/member-preference-repository';
import type { Clock } from '../../shared/clock';

export type { MemberPreferences };

export function createPrivacy(deps: { memberPreferences: Pick<MemberPreferenceRepository, 'of' | 'set'>; clock: Clock }): Privacy {
  return {
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
  of(discordUserId: string): Promise<MemberPreferences>;
  set(discordUserId: string, change: Partial<MemberPreferences>): Promise<MemberPreferences>;
}
