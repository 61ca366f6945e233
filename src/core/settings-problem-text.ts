import type { T } from './i18n';
import { type RefusalFacts, permissionsIn, refusalFromFacts, refusalWords } from './refusal-text';
import type { Weakening } from './settings-policy';

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
  | { code: 'free_tiers_refused'; grant: boolean; roleName: string; refusal: RoleRefusal }
  /** The server's rules changed without Manage Server (`src/core/settings-policy.ts`). */
  | { code: 'rules_need_manage_server'; rules: ReadonlyArray<PolicyRule> }
  /** The server's rules made to protect less, by someone who is neither the owner nor an administrator. */
  | { code: 'weakens'; changes: readonly Weakening[] }
  | { code: 'messages_need_manage_server'; on: boolean }
  | { code: 'choices_need_manage_server'; choices: ReadonlyArray<ServerChoice> }
  /** The person asking is not (any more) a member of the server. */
  | { code: 'not_a_member' }
  | { code: 'channels_need_manage_roles' }
  /** A channel setting refused: the person cannot see the channel, Tierlink cannot, or cannot post there (`missing`: permissions by their English names). */
  | { code: 'channel_refused'; setting: ChannelLabel; why: ChannelWhy }
  | { code: 'slug_length'; min: number; max: number; got: number }
  | { code: 'slug_chars' }
  | { code: 'slug_digits' }
  | { code: 'slug_reserved' | 'slug_vanity' | 'slug_taken'; slug: string }
  | { code: 'preview_threshold'; min: number; max: number }
  | { code: 'welcome_names'; names: readonly string[] }
  | { code: 'server_language'; languages: readonly string[] };

/** The server's rules, as the refusal names them. */
export type PolicyRule = 'graceDays' | 'removalThreshold' | 'mode' | 'joinNonPatrons';

/** The server's choices beside its rules, as the refusal names them. */
export type ServerChoice = 'linkMessages' | 'welcomeNames' | 'previewThreshold' | 'locale';

/** Tierlink's channels, as the refusal names them. */
export type ChannelLabel = 'modLog' | 'announcePatrons' | 'announcePosts';

/** Why a channel cannot be used. */
export type ChannelWhy =
  | { code: 'hidden' }
  | { code: 'unseen' }
  | { code: 'not_in_guild' }
  | { code: 'not_text'; channel: string }
  | { code: 'cannot_post'; channel: string; missing: readonly string[] };

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
    case 'rules_need_manage_server':
      return t('settingsSays.rulesNeedManageServer', {
        what: listIn(
          t,
          facts.rules.map((r) => t(`settingsSays.policy.${r}`)),
        ),
      });
    case 'weakens':
      return t('settingsSays.weakens', { changes: capitalized(facts.changes.map((w) => weakeningIn(t, w)).join('; ')) });
    case 'messages_need_manage_server':
      return t(facts.on ? 'settingsSays.messagesOn' : 'settingsSays.messagesOff');
    case 'choices_need_manage_server':
      return t('settingsSays.choicesNeedManageServer', {
        what: listIn(
          t,
          facts.choices.map((c) => t(`settingsSays.choice.${c}`)),
        ),
      });
    case 'not_a_member': {
      const words = refusalFromFacts(t, { code: 'not_a_member', roleName: '' })!;
      return `${words.message} ${t('doctor.fix', { fix: words.fix })}`;
    }
    case 'channels_need_manage_roles':
      return t('settingsSays.channelsNeedManageRoles');
    case 'channel_refused':
      return t('settingsSays.channelRefused', { label: t(`settingsSays.channel.${facts.setting}`), ...channelWhyIn(t, facts.why) });
    case 'slug_length':
      return t('settingsSays.slugLength', { min: facts.min, max: facts.max, got: facts.got });
    case 'slug_chars':
      return t('settingsSays.slugChars');
    case 'slug_digits':
      return t('settingsSays.slugDigits');
    case 'slug_reserved':
      return t('settingsSays.slugReserved', { slug: facts.slug });
    case 'slug_vanity':
      return t('settingsSays.slugVanity', { slug: facts.slug });
    case 'slug_taken':
      return t('settingsSays.slugTaken', { slug: facts.slug });
    case 'preview_threshold':
      return t('settingsSays.previewThreshold', { min: facts.min, max: facts.max });
    case 'welcome_names':
      return t('settingsSays.welcomeNames', { names: facts.names.join(', ') });
    case 'server_language':
      return t('settingsSays.serverLanguage', { languages: facts.languages.join(', ') });
  }
}

function listIn(t: T, items: readonly string[]): string {
  return new Intl.ListFormat(t.locale, { type: 'conjunction' }).format(items);
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function weakeningIn(t: T, weakening: Weakening): string {
  switch (weakening.kind) {
    case 'grace':
      return t('settingsSays.weakGrace', { from: weakening.from, count: weakening.to });
    case 'guard':
      return t('settingsSays.weakGuard');
    case 'highest':
      return t('settingsSays.weakHighest');
    case 'open_join':
      return t('settingsSays.weakJoin');
  }
}

function channelWhyIn(t: T, why: ChannelWhy): { message: string; fix: string } {
  switch (why.code) {
    case 'hidden':
      return { message: t('settingsSays.channelHidden'), fix: t('settingsSays.channelHiddenFix') };
    case 'unseen':
      return { message: t('settingsSays.channelUnseen'), fix: t('settingsSays.channelUnseenFix') };
    case 'not_in_guild':
      return { message: t('settingsSays.channelNotInGuild'), fix: t('settingsSays.channelNotInGuildFix') };
    case 'not_text':
      return { message: t('settingsSays.channelNotText', { channel: why.channel }), fix: t('settingsSays.channelNotTextFix') };
    case 'cannot_post': {
      const missing = permissionsIn(t, why.missing);
      return {
        message: t('settingsSays.channelCannotPost', { channel: why.channel, missing }),
        fix: t('settingsSays.channelCannotPostFix', { channel: why.channel, missing }),
      };
    }
  }
}
