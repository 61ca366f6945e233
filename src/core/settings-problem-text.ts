import type { T } from './i18n';
import { type RefusalFacts, refusalWords } from './refusal-text';

/** A refusal about a role as a settings problem carries it: its English sentences and its facts. */
export interface RoleRefusal {
  message: string;
  fix: string;
  facts?: RefusalFacts;
}

/** The role settings a problem can name. */
export type RoleSetting = 'former' | 'follower' | 'joiner';

/**
 * What is wrong with a `/settings` change, as facts: the service writes the English sentence where
 * it decides (the dashboard and English replies show it as it is), another language says it from
 * these (`settingsSays.*`).
 */
export type SettingsFacts =
  | { code: 'out_of_range'; option: string; min: number; max: number; got: number }
  | { code: 'unknown_mode'; modes: readonly string[]; got: string }
  | { code: 'same_roles' }
  | { code: 'joiner_same' }
  /** The role setting's current role (`current`) or the one asked for cannot be used by this person or the bot. */
  | { code: 'role_refused'; setting: RoleSetting; current: boolean; refusal: RoleRefusal }
  | { code: 'strict_refused'; roleName: string; refusal: RoleRefusal }
  /** `grant`: free tiers were to start granting their roles (else to stop). */
  | { code: 'free_tiers_refused'; grant: boolean; roleName: string; refusal: RoleRefusal };

/** A problem with a settings change: its English sentence, and its facts where another language can say it. */
export interface SettingsProblem {
  text: string;
  facts?: SettingsFacts;
}

/** A problem in the reader's language: English as the service wrote it; another language from its facts, else English. */
export function settingsProblemWords(t: T, problem: SettingsProblem): string {
  const { facts } = problem;
  if (t.locale === 'en' || !facts) return problem.text;
  switch (facts.code) {
    case 'out_of_range':
      return t('settingsSays.outOfRange', { option: facts.option, min: facts.min, max: facts.max, got: facts.got });
    case 'unknown_mode':
      return t('settingsSays.mode', { modes: facts.modes.join(', '), got: facts.got });
    case 'same_roles':
      return t('settingsSays.sameRoles');
    case 'joiner_same':
      return t('settingsSays.joinerSame');
    case 'role_refused': {
      const label = t(`settingsSays.${facts.setting}`);
      return t(facts.current ? 'settingsSays.currentRefused' : 'settingsSays.roleRefused', { label, ...refusalWords(t, facts.refusal) });
    }
    case 'strict_refused':
      return t('settingsSays.strictRefused', { role: facts.roleName, ...refusalWords(t, facts.refusal) });
    case 'free_tiers_refused':
      return t(facts.grant ? 'settingsSays.freeGrantRefused' : 'settingsSays.freeStopRefused', {
        role: facts.roleName,
        ...refusalWords(t, facts.refusal),
      });
  }
}
