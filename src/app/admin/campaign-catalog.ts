import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { CampaignDetails, PatreonClient } from '../../edges/outbound/patreon';
import { toTierInput } from '../../edges/outbound/patreon/member-records';
import type { Clock } from '../../shared/clock';

/** A campaign's display name: the creator's name, else its vanity, else its id. */
export function campaignName(details: CampaignDetails): string {
  return details.campaign.creatorName ?? details.campaign.vanity ?? `Campaign ${details.campaign.id}`;
}

/**
 * Stores a campaign and its complete tier list as the service reports them now; tiers that
 * disappeared are marked removed.
 */
export async function storeCampaign(
  deps: { campaigns: CampaignRepository; clock: Clock },
  creatorUserId: string,
  details: CampaignDetails,
): Promise<void> {
  await deps.campaigns.upsert({
    id: details.campaign.id,
    creatorUserId,
    name: campaignName(details),
    url: details.campaign.url,
    vanity: details.campaign.vanity,
    patronCount: details.campaign.patronCount,
    payPer: details.campaign.isMonthly === null ? null : details.campaign.isMonthly ? 'month' : 'creation',
    payPerName: details.campaign.payPerName,
  });
  await deps.campaigns.replaceTiers(details.campaign.id, details.tiers.map(toTierInput), deps.clock.now());
}

/** Reads the campaign and its tiers from the service and stores them. */
export async function refreshCampaign(
  deps: { campaigns: CampaignRepository; clock: Clock },
  client: PatreonClient,
  creatorUserId: string,
  campaignId: string,
): Promise<CampaignDetails> {
  const details = await client.getCampaign(campaignId);
  await storeCampaign(deps, creatorUserId, details);
  return details;
}
