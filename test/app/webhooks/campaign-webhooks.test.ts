import { campaignWebhooks } from '../../../src/app/webhooks/campaign-webhooks';

const OURS = 'https://tierlink.example/webhooks/patreon';
const hook = (id: string, campaignId: string | null, uri = OURS) => ({ id, campaignId, uri });

test('a webhook that names the campaign is its own; one that names another campaign never is, even at our address', () => {
  const listed = [hook('1', 'c1'), hook('2', 'c2'), hook('3', 'c2', 'https://elsewhere.example/hook')];
  expect(campaignWebhooks(listed, 'c1', { knownIds: new Set(['2']), uri: OURS }).map((w) => w.id)).toEqual(['1']);
});

test('a webhook listed without its campaign (Patreon’s documented list) is the campaign’s when stored for it or at our address', () => {
  const listed = [
    hook('stored', null, 'https://old.example/webhooks/patreon'),
    hook('ours', null),
    hook('foreign', null, 'https://zapier.example/hook'),
  ];
  expect(campaignWebhooks(listed, 'c1', { knownIds: new Set(['stored']), uri: OURS }).map((w) => w.id)).toEqual(['stored', 'ours']);
  expect(campaignWebhooks(listed, 'c1', { knownIds: new Set(), uri: null }).map((w) => w.id)).toEqual([]);
});
