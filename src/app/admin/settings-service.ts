import type { GuildApplyOutcome } from '../sync';
import type { ChannelNote } from '../../core/post-source-text';
import type { StrictPreview, StrictPreviewer } from '../sync/strict-preview';
import type { GuildContextLoader } from '../sync/guild-context';
import { freeTierRoleIds } from '../../core/planner';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { SecretBox } from '../../edges/outbound/store/secret-box';
import { type SettingsChange, applySettingsChange } from '../../core/planner/settings';
import { Permission, hasPermission } from '../../core/authority';
import { POLICY_LABELS, policyChanges, weakenings, weakeningsOf } from '../../core/settings-policy';
import type { GuildSettings } from '../../core/planner/types';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { ChannelChange, GuildChannels } from '../../core/guild-channels';
import { type ChannelSettings, channelKeys } from './channel-settings';
import { type Actor, type ActorAuthority, type ActorView, NOT_A_MEMBER } from './actor-authority';
import type { ReconcileGuild } from './mapping-service';
import type { RoleAllowances } from './role-allowances';
import type { JoinLink, JoinLinks } from '../joining/join-links';
import { WELCOME_NAMES, type WelcomeNames } from '../../core/channel-posts';
import { PREVIEW_THRESHOLD_BOUNDS } from '../../core/bulk-changes';
import type { ChangePreview, ChangePreviewer } from '../sync/change-preview';
import { CHANGE_CONFIRMATION_MS, type ChangeAsk, type Confirmation, type PendingChanges } from './pending-changes';
import { LOCALES, type Locale, isLocale } from '../../core/i18n';
import type { PolicyRule, RoleSetting, SettingsProblem } from '../../core/settings-problem-text';

/** Turning strict mode on waits for this confirmation, bound to the person who asked, for this long. */
export const STRICT_CONFIRMATION_MS = CHANGE_CONFIRMATION_MS;

/** Strict mode asked for and not yet on: what it would remove, and the token that confirms it. */
export interface StrictRequest {
  preview: StrictPreview;
  confirmation: string;
  expiresAt: Date;
}

/**
 * A `/settings` change: the sync settings, the join page's address (null: back to the default), and
 * whether the server sends patrons direct messages (a declined payment; src/app/membership/patron-messages.ts).
 */
export type SettingsRequest = SettingsChange & {
  joinSlug?: string | null;
  patronMessages?: boolean;
  /** Whether a patron is told by direct message when their membership is linked here. */
  linkMessages?: boolean;
  /** How welcomes name a new patron (src/core/channel-posts.ts). */
  welcomeNames?: WelcomeNames;
  /** From how many role changes a change in Discord is shown first (src/core/bulk-changes.ts). */
  previewThreshold?: number;
  /** The language of what the whole server sees (welcomes, announcements, the mod-log); null: Discord's server language. */
  locale?: Locale | null;
};

/** The server's own choices beside the sync settings, as shown and saved. */
export interface ServerChoices {
  patronMessages: boolean;
  linkMessages: boolean;
  welcomeNames: WelcomeNames;
  previewThreshold: number;
  /** The managers' choice of the server's language; null: Discord's (`discordLocale`). */
  locale: Locale | null;
  discordLocale: Locale;
}

export type SettingsOutcome =
  | { kind: 'shown'; settings: GuildSettings; channels: GuildChannels; join: JoinLink; patronMessages: boolean; choices: ServerChoices }
  | {
      kind: 'changed';
      before: GuildSettings;
      settings: GuildSettings;
      channels: GuildChannels;
      /** Where an announcement channel's news comes from, or what keeps it from working (English, and its facts). */
      notes: ChannelNote[];
      join: JoinLink;
      /** Whether the server sends patrons direct messages, as saved. */
      patronMessages: boolean;
      choices: ServerChoices;
      followUp: Promise<GuildApplyOutcome> | null;
      /** Strict mode was asked for too: saved only once confirmed. */
      strict: StrictRequest | null;
    }
  /** Only strict mode was asked for: nothing is saved until it is confirmed. */
  | {
      kind: 'strict_pending';
      settings: GuildSettings;
      channels: GuildChannels;
      join: JoinLink;
      patronMessages: boolean;
      choices: ServerChoices;
      strict: StrictRequest;
    }
  /** The change would move at least the threshold's number of roles: nothing is saved until it is confirmed. */
  | { kind: 'preview'; preview: ChangePreview; confirmation: Confirmation; changedSince: boolean }
  /** A confirmation pressed a second time: it was already used. */
  | { kind: 'used' }
  | Refused<'invalid'>
  /** The person asking may not manage a role the change concerns; nothing was saved. */
  | Refused<'not_allowed'>;

/**
 * A change refused: `problems` in English (as the dashboard shows them), `said` the same problems
 * with their facts, for a reply in another language (`settingsProblemWords`, src/core/settings-problem-text.ts).
 */
export interface Refused<K extends 'invalid' | 'not_allowed'> {
  kind: K;
  problems: string[];
  said: SettingsProblem[];
}

/** Not (any more) a member of the server: nothing of theirs can be read there. */
function notAMember(): SettingsProblem {
  return { text: `${NOT_A_MEMBER.message} **Fix:** ${NOT_A_MEMBER.fix}`, facts: { code: 'not_a_member' } };
}

function refused<K extends 'invalid' | 'not_allowed'>(kind: K, said: Array<SettingsProblem | string>): Refused<K> {
  const problems = said.map((p) => (typeof p === 'string' ? { text: p } : p));
  return { kind, problems: problems.map((p) => p.text), said: problems };
}

export type StrictConfirmOutcome =
  | { kind: 'changed'; before: GuildSettings; settings: GuildSettings; followUp: Promise<GuildApplyOutcome> | null }
  | { kind: 'already_on'; settings: GuildSettings }
  /** The confirmation is past its time. */
  | { kind: 'expired' }
  /** The confirmation was made for someone else (or in another server), or altered. */
  | { kind: 'not_yours' }
  | Refused<'not_allowed'>;

/** The server's choices beside the sync settings, as a sentence names them. */
const CHOICE_LABELS: Readonly<Record<'linkMessages' | 'welcomeNames' | 'previewThreshold' | 'locale', string>> = {
  linkMessages: 'the message to a newly linked patron',
  welcomeNames: 'how welcomes name new patrons',
  previewThreshold: 'when a change is shown before it is made',
  locale: 'the server’s language',
};

/** Settings that change who gets which role: changing one reconciles the guild. */
const ROLE_AFFECTING: ReadonlyArray<keyof GuildSettings> = [
  'graceDays',
  'mode',
  'formerPatronRoleId',
  'followerRoleId',
  'strict',
  'joinerRoleId',
  'freeTiersGrantRoles',
];

export interface SettingsServiceDeps {
  guilds: GuildRepository;
  authority: ActorAuthority;
  /** A role with dangerous permissions named here by the owner or an administrator is allowed by that (src/app/admin/role-allowances.ts). */
  allowances: Pick<RoleAllowances, 'allowNamed'>;
  strict: StrictPreviewer;
  /** The dry run of a change that moves roles, and the changes waiting for a confirmation. */
  previews: Pick<ChangePreviewer, 'preview'>;
  pending: Pick<PendingChanges, 'gate'>;
  /** The guild's tiers and roles, for the roles free tiers grant (`freeTiersGrantRoles`). */
  contexts: GuildContextLoader;
  box: Pick<SecretBox, 'sign' | 'verify'>;
  clock: Clock;
  reconcileGuild: ReconcileGuild;
  /** The channels Tierlink posts in (the mod-log, announcements): checked and saved with the rest. */
  channels: ChannelSettings;
  /** The join pages' addresses: `join_slug` is checked and saved there. */
  joinLinks: Pick<JoinLinks, 'linkOf' | 'chooseSaying'>;
  logger: Logger;
}

export function createSettingsService(deps: SettingsServiceDeps): SettingsService {
  const { box, clock, logger } = deps;

  const signed = (actor: Actor, expiresAt: number) => `strict-on:${actor.guildId}:${actor.userId}:${expiresAt}`;

  function confirmationFor(actor: Actor): { token: string; expiresAt: Date } {
    const expiresAt = clock.now().getTime() + STRICT_CONFIRMATION_MS;
    return { token: `${expiresAt.toString(36)}.${box.sign(signed(actor, expiresAt))}`, expiresAt: new Date(expiresAt) };
  }

  /** Strict mode removes every role it enforces from anyone not entitled: the actor needs authority over each. */
  async function strictProblems(view: ActorView): Promise<SettingsProblem[]> {
    const scope = await deps.strict.scope(view.actor.guildId);
    const problems: SettingsProblem[] = [];
    for (const role of scope.enforced) {
      const decision = deps.authority.decide(view, role.roleId, { botMustManage: false });
      if (!decision.ok)
        problems.push({
          text: `Strict mode would remove ${role.roleName} from members: ${decision.message} **Fix:** ${decision.fix}`,
          facts: { code: 'strict_refused', roleName: role.roleName, refusal: decision },
        });
    }
    return problems;
  }

  /**
   * Turning free tiers' roles off takes them from every free member, turning them on gives them:
   * either way the actor needs authority over each role a free tier grants, as `/map` asks.
   */
  async function freeTierProblems(view: ActorView, on: boolean): Promise<SettingsProblem[]> {
    const guild = await deps.contexts.load(view.actor.guildId);
    const problems: SettingsProblem[] = [];
    for (const roleId of freeTierRoleIds(guild)) {
      const decision = deps.authority.decide(view, roleId, { botMustManage: false });
      if (decision.ok) continue;
      const name = guild.roles.get(roleId)?.name ?? roleId;
      problems.push({
        text: `Free tiers cannot ${on ? 'grant' : 'stop granting'} ${name}: ${decision.message} **Fix:** ${decision.fix}`,
        facts: { code: 'free_tiers_refused', grant: on, roleName: name, refusal: decision },
      });
    }
    return problems;
  }

  async function choicesOf(guildId: string): Promise<ServerChoices> {
    const [patronMessages, linkMessages, welcomeNames, previewThreshold, language] = await Promise.all([
      deps.guilds.patronMessages(guildId),
      deps.guilds.linkMessages(guildId),
      deps.guilds.welcomeNames(guildId),
      deps.guilds.previewThreshold(guildId),
      deps.guilds.localeChoice(guildId),
    ]);
    return { patronMessages, linkMessages, welcomeNames, previewThreshold, locale: language.chosen, discordLocale: language.discord };
  }

  function save(actor: Actor, before: GuildSettings, next: GuildSettings): Promise<GuildApplyOutcome> | null {
    const affects = ROLE_AFFECTING.some((k) => next[k] !== before[k]);
    if (!affects) return null;
    const followUp = deps.reconcileGuild(actor.guildId, 'settings');
    followUp.catch((error) => logger.error({ err: error, guildId: actor.guildId }, 'reconcile after a settings change failed'));
    return followUp;
  }

  return {
    choices: choicesOf,

    async apply(actor: Actor, request: SettingsRequest, channelChange: ChannelChange = {}, ask?: ChangeAsk): Promise<SettingsOutcome> {
      const { guildId } = actor;
      const { joinSlug, patronMessages, linkMessages, welcomeNames, previewThreshold, locale, ...change } = request;
      const before = await deps.guilds.settings(guildId);
      const channelsBefore = await deps.channels.current(guildId);
      const choicesBefore = await choicesOf(guildId);
      const messagesBefore = choicesBefore.patronMessages;
      const keys = (Object.keys(change) as Array<keyof GuildSettings>).filter((k) => change[k] !== undefined);
      const channelChanges = channelKeys(channelChange);
      const choiceChanges = (
        [
          ['linkMessages', linkMessages],
          ['welcomeNames', welcomeNames],
          ['previewThreshold', previewThreshold],
          ['locale', locale],
        ] as const
      ).filter(([key, value]) => value !== undefined && value !== choicesBefore[key]);
      if (
        keys.length === 0 &&
        joinSlug === undefined &&
        patronMessages === undefined &&
        linkMessages === undefined &&
        welcomeNames === undefined &&
        previewThreshold === undefined &&
        locale === undefined &&
        channelChanges.length === 0
      )
        return {
          kind: 'shown',
          settings: before,
          channels: channelsBefore,
          join: await deps.joinLinks.linkOf(guildId),
          patronMessages: messagesBefore,
          choices: choicesBefore,
        };
      const next = applySettingsChange(before, change);
      if (!next.ok) return refused('invalid', next.error);
      if (
        previewThreshold !== undefined &&
        (!Number.isInteger(previewThreshold) ||
          previewThreshold < PREVIEW_THRESHOLD_BOUNDS.min ||
          previewThreshold > PREVIEW_THRESHOLD_BOUNDS.max)
      )
        return refused('invalid', [
          {
            text: `preview_threshold must be a whole number from ${PREVIEW_THRESHOLD_BOUNDS.min} to ${PREVIEW_THRESHOLD_BOUNDS.max}.`,
            facts: { code: 'preview_threshold', ...PREVIEW_THRESHOLD_BOUNDS },
          },
        ]);
      if (welcomeNames !== undefined && !WELCOME_NAMES.includes(welcomeNames))
        return refused('invalid', [
          { text: `welcome_names must be one of ${WELCOME_NAMES.join(', ')}.`, facts: { code: 'welcome_names', names: WELCOME_NAMES } },
        ]);
      if (locale !== undefined && locale !== null && !isLocale(locale))
        return refused('invalid', [
          {
            text: `The server’s language must be one of ${LOCALES.join(', ')}, or Discord’s.`,
            facts: { code: 'server_language', languages: LOCALES },
          },
        ]);

      const view = await deps.authority.read(actor, { fresh: true });
      if (!view) return refused('not_allowed', [notAMember()]);
      const notAllowed: Array<SettingsProblem | string> = [];
      const invalid: Array<SettingsProblem | string> = [];
      // The server's rules (grace, the mass-removal guard, the mode, who may join) are the server's
      // managers' to change, and to weaken only its owner's or an administrator's.
      const policy = policyChanges(before, next.value);
      if (policy.length > 0 && !hasPermission(view.authority, Permission.ManageGuild)) {
        const what = [...new Set(policy.map((k) => POLICY_LABELS[k]))].join(', ');
        const rules = [
          ...new Set(policy.map((k): PolicyRule => (k.startsWith('removalThreshold') ? 'removalThreshold' : (k as PolicyRule)))),
        ];
        notAllowed.push({
          text: `Changing ${what} needs the Manage Server permission: these are the server’s rules, not a role. **Fix:** Ask someone with Manage Server, the server owner or an administrator.`,
          facts: { code: 'rules_need_manage_server', rules },
        });
      } else if (policy.length > 0 && !view.authority.isOwner && !view.authority.isAdministrator) {
        const weaker = weakenings(before, next.value);
        if (weaker.length > 0) {
          notAllowed.push({
            text: `${weaker.join('; ').replace(/^./, (c) => c.toUpperCase())} protects members and the server less: only the server owner or an administrator can do that. **Fix:** Ask the server owner or someone with Administrator.`,
            facts: { code: 'weakens', changes: weakeningsOf(before, next.value) },
          });
        }
      }
      // Messages to patrons speak for the server to its members: the server's managers decide.
      if (patronMessages !== undefined && patronMessages !== messagesBefore && !hasPermission(view.authority, Permission.ManageGuild)) {
        notAllowed.push({
          text: `Turning messages to patrons ${patronMessages ? 'on' : 'off'} needs the Manage Server permission. **Fix:** Ask someone with Manage Server, the server owner or an administrator.`,
          facts: { code: 'messages_need_manage_server', on: patronMessages },
        });
      }
      // How the server speaks to and of its members, and when it asks before moving roles: the server's managers decide.
      if (choiceChanges.length > 0 && !hasPermission(view.authority, Permission.ManageGuild)) {
        const what = choiceChanges.map(([key]) => CHOICE_LABELS[key]).join(', ');
        notAllowed.push({
          text: `Changing ${what} needs the Manage Server permission. **Fix:** Ask someone with Manage Server, the server owner or an administrator.`,
          facts: { code: 'choices_need_manage_server', choices: choiceChanges.map(([key]) => key) },
        });
      }
      for (const [key, label, setting] of [
        ['formerPatronRoleId', 'former-patron role', 'former'],
        ['followerRoleId', 'follower role', 'follower'],
        ['joinerRoleId', 'joiner role', 'joiner'],
      ] as const satisfies ReadonlyArray<readonly [keyof GuildSettings, string, RoleSetting]>) {
        const roleId = change[key];
        if (roleId === undefined || roleId === (before[key] ?? null)) continue;
        // The role given up is taken away from those who got it: the same authority over it.
        const old = before[key] ?? null;
        if (old) {
          const decision = deps.authority.decide(view, old, { botMustManage: false });
          if (!decision.ok)
            notAllowed.push({
              text: `The current ${label} cannot be changed: ${decision.message} **Fix:** ${decision.fix}`,
              facts: { code: 'role_refused', setting, current: true, refusal: decision },
            });
        }
        if (roleId) {
          const decision = deps.authority.decide(view, roleId, { botMustManage: true });
          if (!decision.ok) {
            const line: SettingsProblem = {
              text: `The ${label} cannot be used: ${decision.message} **Fix:** ${decision.fix}`,
              facts: { code: 'role_refused', setting, current: false, refusal: decision },
            };
            (decision.kind === 'not_allowed' ? notAllowed : invalid).push(line);
          }
        }
      }
      const strictOn = change.strict === true && !before.strict;
      if (strictOn) notAllowed.push(...(await strictProblems(view)));
      const freeTiers = change.freeTiersGrantRoles;
      if (freeTiers !== undefined && freeTiers !== (before.freeTiersGrantRoles ?? true))
        notAllowed.push(...(await freeTierProblems(view, freeTiers)));
      const channelCheck = await deps.channels.check(view, channelChange);
      notAllowed.push(...channelCheck.notAllowed);
      invalid.push(...channelCheck.invalid);
      if (notAllowed.length > 0) return refused('not_allowed', notAllowed);
      if (invalid.length > 0) return refused('invalid', invalid);

      // A change that moves roles shows what it would do first (from the threshold up) and waits.
      const proposed = strictOn ? { ...next.value, strict: before.strict } : next.value;
      if (ROLE_AFFECTING.some((k) => k !== 'strict' && proposed[k] !== before[k])) {
        const preview = await deps.previews.preview(guildId, (g) => ({ ...g, settings: { ...proposed } }));
        const gate = await deps.pending.gate(
          actor,
          { kind: 'settings', request, channels: channelChange },
          preview,
          ask ?? { threshold: choicesBefore.previewThreshold },
        );
        if (gate.kind === 'used') return { kind: 'used' };
        if (gate.kind === 'ask') return { kind: 'preview', preview, confirmation: gate.confirmation, changedSince: gate.changedSince };
      }
      let strict: StrictRequest | null = null;
      if (strictOn) {
        const { token, expiresAt } = confirmationFor(actor);
        strict = { preview: await deps.strict.preview(guildId), confirmation: token, expiresAt };
      }
      // The join page's address last: it is saved when it is accepted, so nothing is saved before it.
      let join: JoinLink | null = null;
      if (joinSlug !== undefined) {
        const chosen = await deps.joinLinks.chooseSaying(guildId, joinSlug);
        if (!chosen.ok) return refused('invalid', [chosen.error]);
        join = chosen.value;
      }
      join ??= await deps.joinLinks.linkOf(guildId);
      const saved = proposed;
      const others = (Object.keys(saved) as Array<keyof GuildSettings>).some((k) => saved[k] !== before[k]);
      const messagesChange = patronMessages !== undefined && patronMessages !== messagesBefore;
      if (strict && !others && joinSlug === undefined && !messagesChange && choiceChanges.length === 0 && channelChanges.length === 0)
        return {
          kind: 'strict_pending',
          settings: before,
          channels: channelsBefore,
          join,
          patronMessages: messagesBefore,
          choices: choicesBefore,
          strict,
        };
      if (others) await deps.guilds.saveSettings(guildId, saved);
      if (messagesChange) await deps.guilds.setPatronMessages(guildId, patronMessages);
      if (linkMessages !== undefined && linkMessages !== choicesBefore.linkMessages)
        await deps.guilds.setLinkMessages(guildId, linkMessages);
      if (welcomeNames !== undefined && welcomeNames !== choicesBefore.welcomeNames)
        await deps.guilds.setWelcomeNames(guildId, welcomeNames);
      if (previewThreshold !== undefined && previewThreshold !== choicesBefore.previewThreshold)
        await deps.guilds.setPreviewThreshold(guildId, previewThreshold);
      if (locale !== undefined && locale !== choicesBefore.locale) await deps.guilds.setLocale(guildId, locale);
      for (const key of ['formerPatronRoleId', 'followerRoleId', 'joinerRoleId'] as const) {
        const roleId = saved[key] ?? null;
        if (roleId && roleId !== (before[key] ?? null)) await deps.allowances.allowNamed(view, roleId);
      }
      const { channels, notes } =
        channelChanges.length > 0
          ? await deps.channels.save(guildId, channelsBefore, channelChange)
          : { channels: channelsBefore, notes: [] };
      const changedKeys = [
        ...keys,
        ...(joinSlug === undefined ? [] : ['joinSlug']),
        ...(patronMessages === undefined ? [] : ['patronMessages']),
        ...choiceChanges.map(([key]) => key),
        ...channelChanges,
      ];
      logger.info({ guildId, userId: actor.userId, keys: changedKeys }, 'settings changed');
      return {
        kind: 'changed',
        before,
        settings: saved,
        channels,
        notes,
        join,
        patronMessages: patronMessages ?? messagesBefore,
        choices: await choicesOf(guildId),
        followUp: save(actor, before, saved),
        strict,
      };
    },

    async confirmStrict(actor: Actor, confirmation: string): Promise<StrictConfirmOutcome> {
      const [expiry = '', signature = ''] = confirmation.split('.');
      const expiresAt = parseInt(expiry, 36);
      if (!Number.isSafeInteger(expiresAt) || !box.verify(signed(actor, expiresAt), signature)) return { kind: 'not_yours' };
      if (clock.now().getTime() > expiresAt) return { kind: 'expired' };
      const before = await deps.guilds.settings(actor.guildId);
      if (before.strict) return { kind: 'already_on', settings: before };
      // Read again: the person's roles or the mapped roles may have changed since the preview.
      const view = await deps.authority.read(actor, { fresh: true });
      if (!view) return refused('not_allowed', [notAMember()]);
      const problems = await strictProblems(view);
      if (problems.length > 0) return refused('not_allowed', problems);
      const next = { ...before, strict: true };
      await deps.guilds.saveSettings(actor.guildId, next);
      logger.info({ guildId: actor.guildId, userId: actor.userId }, 'strict mode turned on');
      return { kind: 'changed', before, settings: next, followUp: save(actor, before, next) };
    },
  };
}

/**
 * `/settings`: shows the guild's settings, or validates, saves and echoes a change. A change that
 * concerns a role (the former-patron and follower roles, strict mode, whether free tiers grant
 * their roles) is checked against the
 * actor's authority, read from Discord (src/core/authority.ts). Turning strict mode on is never
 * immediate: the outcome carries what it would remove and a confirmation token, bound to the actor
 * and expiring after {@link STRICT_CONFIRMATION_MS}, that {@link confirmStrict} takes.
 */
export interface SettingsService {
  /** Messages to patrons, how welcomes name them, and from how many role changes Discord's commands ask first. */
  choices(guildId: string): Promise<ServerChoices>;
  /**
   * `ask`: where the change is asked (the threshold below which a change that moves roles applies
   * at once), or the confirmation it comes with; absent: the server's own threshold (Discord's).
   */
  apply(actor: Actor, request: SettingsRequest, channelChange?: ChannelChange, ask?: ChangeAsk): Promise<SettingsOutcome>;
  /** The actor confirms turning strict mode on, with the token {@link apply} handed them. */
  confirmStrict(actor: Actor, confirmation: string): Promise<StrictConfirmOutcome>;
}
