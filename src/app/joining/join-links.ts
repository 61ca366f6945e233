import type { SettingsProblem } from '../../core/settings-problem-text';
import { looksLikeJoinSlug, validateJoinSlug, vanitySlug } from '../../core/join-slug';
import type { Result } from '../../core/result';
import { err, ok } from '../../core/result';
import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';

/** Where a server's join page address comes from. */
export type SlugSource = 'chosen' | 'vanity' | 'id';

export interface JoinLink {
  slug: string;
  source: SlugSource;
  url: string;
}

export interface JoinLinksDeps {
  guilds: Pick<GuildRepository, 'joinSlug' | 'byJoinSlug' | 'campaignsOf' | 'guildsOf' | 'setJoinSlug'>;
  campaigns: Pick<CampaignRepository, 'get' | 'byVanity'>;
  publicUrl: () => string;
}

export function createJoinLinks(deps: JoinLinksDeps): JoinLinks {
  const url = (slug: string) => `${deps.publicUrl()}/join/${slug}`;

  /** The one server serving the campaign of this vanity, or null (none, or several: ambiguous). */
  async function byVanity(slug: string): Promise<string | null> {
    const guildIds = new Set<string>();
    for (const campaign of await deps.campaigns.byVanity(slug)) for (const g of await deps.guilds.guildsOf(campaign.id)) guildIds.add(g);
    return guildIds.size === 1 ? [...guildIds][0]! : null;
  }

  async function resolve(slug: string): Promise<string | null> {
    if (!looksLikeJoinSlug(slug)) return null;
    const lower = slug.toLowerCase();
    const chosen = await deps.guilds.byJoinSlug(lower);
    if (chosen) return chosen;
    if (/^\d{17,20}$/.test(lower)) return (await deps.guilds.campaignsOf(lower)).length > 0 ? lower : null;
    return byVanity(lower);
  }

  async function linkOf(guildId: string): Promise<JoinLink> {
    const chosen = await deps.guilds.joinSlug(guildId);
    if (chosen) return { slug: chosen, source: 'chosen', url: url(chosen) };
    for (const campaignId of await deps.guilds.campaignsOf(guildId)) {
      const slug = vanitySlug((await deps.campaigns.get(campaignId))?.vanity);
      if (slug && (await resolve(slug)) === guildId) return { slug, source: 'vanity', url: url(slug) };
    }
    return { slug: guildId, source: 'id', url: url(guildId) };
  }

  return {
    resolve,

    linkOf,

    async choose(guildId: string, input: string | null): Promise<Result<JoinLink, string>> {
      const chosen = await chooseSaying(guildId, input);
      return chosen.ok ? chosen : err(chosen.error.text);
    },

    chooseSaying,
  };

  async function chooseSaying(guildId: string, input: string | null): Promise<Result<JoinLink, SettingsProblem>> {
    let slug: string | null = null;
    if (input !== null) {
      const checked = validateJoinSlug(input);
      if (!checked.ok) return err({ text: checked.error.message, facts: checked.error.facts });
      slug = checked.value;
      const vanityOf = await byVanity(slug);
      const servedHere = (await deps.guilds.campaignsOf(guildId)).length > 0 && vanityOf === guildId;
      const vanityElsewhere = (await deps.campaigns.byVanity(slug)).length > 0 && !servedHere;
      if (vanityElsewhere)
        return err({
          text: `join_slug “${slug}” is the Patreon name of a campaign another server serves; choose another.`,
          facts: { code: 'slug_vanity', slug },
        });
    }
    const saved = await deps.guilds.setJoinSlug(guildId, slug);
    if (saved === 'taken')
      return err({
        text: `join_slug “${slug}” is already another server’s join page; choose another.`,
        facts: { code: 'slug_taken', slug: slug ?? '' },
      });
    return ok(await linkOf(guildId));
  }
}

/**
 * The address of each server's join page, `$PUBLIC_URL/join/<slug>` (src/core/join-slug.ts), both
 * ways: the slug a server shows (`/settings`, `/link`, `/doctor`) and the server a slug opens.
 *
 * A slug opens, in this order: the server that chose it (`/settings join_slug:`); the server whose
 * id it is; the one server serving the campaign whose vanity it is. A server shows its chosen slug,
 * else its campaign's vanity when that opens this server, else its id, so the address it shows
 * always leads back to it. A server may not choose another server's campaign vanity: links a creator
 * already put on Patreon never start to lead elsewhere.
 */
export interface JoinLinks {
  /** The server a join page address opens, or null. */
  resolve(slug: string): Promise<string | null>;
  /** The address a server shows for its join page. */
  linkOf(guildId: string): Promise<JoinLink>;
  /**
   * `/settings join_slug:` (null: back to the default). Checked: the form, another server's
   * chosen slug, another server's campaign vanity. Answers the server's address after the change.
   */
  choose(guildId: string, input: string | null): Promise<Result<JoinLink, string>>;
  /** {@link choose}, its refusal with the facts another language says it from (src/core/settings-problem-text.ts). */
  chooseSaying(guildId: string, input: string | null): Promise<Result<JoinLink, SettingsProblem>>;
}
