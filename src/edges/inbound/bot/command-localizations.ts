import type { RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';
import { DISCORD_LOCALIZED, ENGLISH, type MessageKey, translator } from '../../../core/i18n';

/**
 * The command definitions as registered: each description, option description and choice name
 * with its German, Spanish and Portuguese (`description_localizations`, `name_localizations` of
 * choices), so Discord shows them in each member's language. Command and option names stay as
 * typed everywhere: replies and pages tell people to run `/link`. The catalogue key of a
 * description is `command.<command>[.<option>…]`, of a choice `….choice.<value>`
 * (src/core/i18n/messages/en.ts); a definition without one is registered in English alone and
 * fails the registration test.
 */
export function localizeCommand(data: RESTPostAPIChatInputApplicationCommandsJSONBody): RESTPostAPIChatInputApplicationCommandsJSONBody {
  const base = `command.${data.name}`;
  return {
    ...data,
    ...localized('description_localizations', base),
    ...(data.options ? { options: data.options.map((o) => localizeOption(o as unknown as OptionJson, base)) } : {}),
  } as RESTPostAPIChatInputApplicationCommandsJSONBody;
}

interface OptionJson {
  name: string;
  description: string;
  options?: OptionJson[];
  choices?: Array<{ name: string; value: string | number }>;
  [key: string]: unknown;
}

function localizeOption(option: OptionJson, parent: string): OptionJson {
  const key = `${parent}.${option.name}`;
  return {
    ...option,
    ...localized('description_localizations', key),
    ...(option.options ? { options: option.options.map((o) => localizeOption(o, key)) } : {}),
    ...(option.choices
      ? { choices: option.choices.map((c) => ({ ...c, ...localized('name_localizations', `${key}.choice.${c.value}`) })) }
      : {}),
  };
}

function localized(field: string, key: string): Record<string, Record<string, string>> {
  if (!(key in ENGLISH)) return {};
  return { [field]: Object.fromEntries(DISCORD_LOCALIZED.map((locale) => [locale, translator(locale)(key as MessageKey & CommandKey)])) };
}

/** The catalogue's command keys (texts without placeholders). */
type CommandKey = Extract<MessageKey, `command.${string}`>;

/** Every catalogue key a definition needs, with the English it must match (for the registration test). */
export function commandTexts(data: RESTPostAPIChatInputApplicationCommandsJSONBody): Array<{ key: string; english: string }> {
  const out: Array<{ key: string; english: string }> = [{ key: `command.${data.name}`, english: data.description }];
  const walk = (options: OptionJson[] | undefined, parent: string) => {
    for (const o of options ?? []) {
      const key = `${parent}.${o.name}`;
      out.push({ key, english: o.description });
      for (const c of o.choices ?? []) out.push({ key: `${key}.choice.${c.value}`, english: c.name });
      walk(o.options, key);
    }
  };
  walk(data.options as unknown as OptionJson[] | undefined, `command.${data.name}`);
  return out;
}
