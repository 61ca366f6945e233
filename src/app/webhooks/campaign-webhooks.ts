import type { Webhook } from '../../edges/outbound/patreon';

/**
 * The webhooks of one campaign among those the creator's client lists.
 *
 * Patreon's documented webhook list carries no relationships (docs/patreon-api-notes.md §2.5): a
 * webhook read from it has `campaignId` null. Such a webhook is this campaign's when Tierlink
 * stored it for this campaign (`knownIds`) or when it points at Tierlink's own uri: a Patreon
 * account has one campaign, so a webhook of its client at our address is the one we registered.
 * A webhook that names another campaign is never this one's.
 */
export function campaignWebhooks<W extends Pick<Webhook, 'id' | 'campaignId' | 'uri'>>(
  listed: readonly W[],
  campaignId: string,
  options: { knownIds: ReadonlySet<string>; uri: string | null },
): W[] {
  return listed.filter(
    (w) =>
      w.campaignId === campaignId ||
      (w.campaignId === null && (options.knownIds.has(w.id) || (options.uri !== null && w.uri === options.uri))),
  );
}
