import { ApiErrors } from './api-error';
import type { RouteContext, RouteDefinition } from './http-router';
import type { CoreContext } from './rest-routes';
import type { SnowflakeFactory } from './snowflakes';
import type { StoredCommand } from './types';

/** Names of chat-input commands and options (Discord's docs, Application Commands; docs/tech-facts.md §4). */
const CHAT_INPUT_NAME = /^[-_'\p{Ll}\p{Lo}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const OTHER_NAME = /^.{1,32}$/u;

function fail(path: string, code: string, message: string): never {
  throw ApiErrors.invalidFormBody(path, code, message);
}

/** Discord's locales, the keys a localization dictionary may have (Discord's docs, Reference: Locales). */
export const DISCORD_LOCALES = [
  'id',
  'da',
  'de',
  'en-GB',
  'en-US',
  'es-ES',
  'es-419',
  'fr',
  'hr',
  'it',
  'lt',
  'hu',
  'nl',
  'no',
  'pl',
  'pt-BR',
  'ro',
  'fi',
  'sv-SE',
  'vi',
  'tr',
  'cs',
  'el',
  'bg',
  'ru',
  'uk',
  'hi',
  'th',
  'zh-CN',
  'ja',
  'zh-TW',
  'ko',
] as const;

/**
 * A `name_localizations` or `description_localizations` dictionary: keys are Discord's locales,
 * values follow the same rules as the field they localize (a name's pattern, a description's
 * 1 to 100 characters). Returns the dictionary to store, or null.
 */
function validateLocalizations(
  raw: unknown,
  path: string,
  valid: (value: string) => boolean,
  rule: [string, string],
): Record<string, string> | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) fail(path, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
  const out: Record<string, string> = {};
  for (const [locale, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!(DISCORD_LOCALES as readonly string[]).includes(locale))
      fail(`${path}.${locale}`, 'BASE_TYPE_CHOICES', `Value must be one of {${DISCORD_LOCALES.map((l) => `'${l}'`).join(', ')}}.`);
    if (typeof value !== 'string' || !valid(value)) fail(`${path}.${locale}`, rule[0], rule[1]);
    out[locale] = value;
  }
  return out;
}

const DESCRIPTION_RULE: [string, string] = ['BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.'];
const NAME_RULE: [string, string] = ['APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid'];
const describes = (value: string) => value.length >= 1 && value.length <= 100;

function validateOptions(options: unknown, path: string, depth: number): void {
  if (options === undefined || options === null) return;
  if (!Array.isArray(options)) fail(path, 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
  if (options.length > 25) fail(path, 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
  const names = new Set<string>();
  let sawOptional = false;
  options.forEach((raw: unknown, i) => {
    const at = `${path}.${i}`;
    if (typeof raw !== 'object' || raw === null) fail(at, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
    const option = raw as Record<string, unknown>;
    if (typeof option.type !== 'number' || option.type < 1 || option.type > 11)
      fail(`${at}.type`, 'BASE_TYPE_CHOICES', 'Value must be one of {1, …, 11}.');
    if (typeof option.name !== 'string' || !CHAT_INPUT_NAME.test(option.name))
      fail(`${at}.name`, 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    if (names.has(option.name)) fail(`${at}.name`, 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', 'Option name already exists');
    names.add(option.name);
    if (typeof option.description !== 'string' || option.description.length < 1 || option.description.length > 100) {
      fail(`${at}.description`, 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    }
    validateLocalizations(option.name_localizations, `${at}.name_localizations`, (v) => CHAT_INPUT_NAME.test(v), NAME_RULE);
    validateLocalizations(option.description_localizations, `${at}.description_localizations`, describes, DESCRIPTION_RULE);
    if (Array.isArray(option.choices)) {
      option.choices.forEach((choice: unknown, c) => {
        const name = (choice as Record<string, unknown> | null)?.name_localizations;
        validateLocalizations(name, `${at}.choices.${c}.name_localizations`, describes, DESCRIPTION_RULE);
      });
    }
    if (option.autocomplete === true && option.choices !== undefined) {
      fail(
        `${at}.autocomplete`,
        'APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_WITH_CHOICES',
        'Autocomplete cannot be enabled for options with choices',
      );
    }
    const nested = option.type === 1 || option.type === 2;
    if (nested) {
      if (depth >= 2) fail(`${at}.type`, 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', 'Sub-command groups cannot be nested this deep');
      validateOptions(option.options, `${at}.options`, depth + 1);
    } else if (option.required === true) {
      if (sawOptional)
        fail(
          `${at}.required`,
          'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
          'Required options must be placed before non-required options',
        );
    } else {
      sawOptional = true;
    }
  });
}

function validateCommand(raw: unknown, index: number): Record<string, unknown> {
  const at = String(index);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    fail(at, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
  const command = raw as Record<string, unknown>;
  const type = command.type ?? 1;
  if (type !== 1 && type !== 2 && type !== 3 && type !== 4) fail(`${at}.type`, 'BASE_TYPE_CHOICES', 'Value must be one of {1, 2, 3, 4}.');
  if (typeof command.name !== 'string' || !(type === 1 ? CHAT_INPUT_NAME : OTHER_NAME).test(command.name)) {
    fail(`${at}.name`, 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
  }
  const nameRule = type === 1 ? CHAT_INPUT_NAME : OTHER_NAME;
  validateLocalizations(command.name_localizations, `${at}.name_localizations`, (v) => nameRule.test(v), NAME_RULE);
  if (type === 1) {
    if (typeof command.description !== 'string' || command.description.length < 1 || command.description.length > 100) {
      fail(`${at}.description`, 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    }
    validateOptions(command.options, `${at}.options`, 0);
    validateLocalizations(command.description_localizations, `${at}.description_localizations`, describes, DESCRIPTION_RULE);
  } else if (command.description !== undefined && command.description !== '') {
    fail(`${at}.description`, 'APPLICATION_COMMAND_INVALID_DESCRIPTION', 'Context menu commands cannot have a description');
  }
  const perms = command.default_member_permissions;
  if (perms !== undefined && perms !== null && (typeof perms !== 'string' || !/^\d+$/.test(perms))) {
    fail(`${at}.default_member_permissions`, 'BASE_TYPE_STRING', 'Must be a permission bit set as a string.');
  }
  return { ...command, type };
}

/**
 * Application commands, global and per guild, replaced wholesale by a bulk-overwrite PUT
 * (docs/tech-facts.md §4). A command keeps its id across overwrites while its name and type stay.
 */
export class CommandStore {
  private readonly global: StoredCommand[] = [];
  private readonly guilds = new Map<string, StoredCommand[]>();
  private readonly puts = new Map<string, number>();

  constructor(
    private readonly core: CoreContext,
    private readonly nextId: SnowflakeFactory,
  ) {}

  list(guildId?: string): StoredCommand[] {
    const commands = guildId === undefined ? this.global : (this.guilds.get(guildId) ?? []);
    return commands.map((c) => ({ ...c }));
  }

  /** Bulk-overwrite PUTs received, for the global scope or one guild. */
  putCount(guildId?: string): number {
    return this.puts.get(guildId ?? 'global') ?? 0;
  }

  idFor(guildId: string, name: string): string | undefined {
    return (this.guilds.get(guildId) ?? []).concat(this.global).find((c) => c.name === name && c.type === 1)?.id;
  }

  private overwrite(body: unknown, guildId: string | undefined): StoredCommand[] {
    if (!Array.isArray(body)) fail('_', 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    const validated = body.map((raw: unknown, i) => validateCommand(raw, i));
    const seen = new Set<string>();
    validated.forEach((c, i) => {
      const key = `${String(c.type)}:${String(c.name)}`;
      if (seen.has(key)) fail(`${i}.name`, 'APPLICATION_COMMANDS_DUPLICATE_NAME', `Application command names must be unique`);
      seen.add(key);
    });
    if (validated.filter((c) => c.type === 1).length > 100) fail('_', 'BASE_TYPE_MAX_LENGTH', 'Must be 100 or fewer in length.');
    const previous = guildId === undefined ? this.global : (this.guilds.get(guildId) ?? []);
    const next = validated.map((c): StoredCommand => {
      const kept = previous.find((p) => p.name === c.name && p.type === c.type);
      const stored: StoredCommand = {
        ...c,
        id: kept?.id ?? this.nextId(),
        application_id: this.core.applicationId,
        version: this.nextId(),
        name: String(c.name),
        type: Number(c.type),
        description: typeof c.description === 'string' ? c.description : '',
        default_member_permissions: typeof c.default_member_permissions === 'string' ? c.default_member_permissions : null,
        nsfw: c.nsfw === true,
        name_localizations: validateLocalizations(c.name_localizations, '_', () => true, NAME_RULE),
        description_localizations: validateLocalizations(c.description_localizations, '_', () => true, DESCRIPTION_RULE),
        contexts: Array.isArray(c.contexts) ? c.contexts : null,
        integration_types: Array.isArray(c.integration_types) ? c.integration_types : [0],
      };
      if (guildId !== undefined) stored.guild_id = guildId;
      return stored;
    });
    const key = guildId ?? 'global';
    this.puts.set(key, (this.puts.get(key) ?? 0) + 1);
    if (guildId === undefined) this.global.splice(0, this.global.length, ...next);
    else this.guilds.set(guildId, next);
    return next.map((c) => ({ ...c }));
  }

  /** The app id in the path must be ours; a guild must exist and have the bot (50001 otherwise). */
  private scope(ctx: RouteContext): string | undefined {
    if (ctx.params.app !== this.core.applicationId) throw ApiErrors.missingAccess();
    const guildId = ctx.params.g;
    if (guildId === undefined) return undefined;
    const guild = this.core.state.guild(guildId);
    if (!guild || !guild.members.has(this.core.state.botUser.id)) throw ApiErrors.missingAccess();
    return guildId;
  }

  routes(): RouteDefinition[] {
    const base = { auth: 'bot', global: true, bucket: 'commands', major: ['app'] } as const;
    return ['/applications/:app/commands', '/applications/:app/guilds/:g/commands'].flatMap((template): RouteDefinition[] => [
      { ...base, method: 'GET', template, handle: (ctx) => ({ status: 200, body: this.list(this.scope(ctx)) }) },
      { ...base, method: 'PUT', template, handle: (ctx) => ({ status: 200, body: this.overwrite(ctx.body, this.scope(ctx)) }) },
    ]);
  }
}
