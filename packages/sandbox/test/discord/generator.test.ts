import { createManualClock } from '@tierlink/sandbox';
import { createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';

describe('Discord sandbox guild generator and waiters', () => {
  let a: DiscordSandbox;
  let b: DiscordSandbox;

  beforeAll(async () => {
    a = await createDiscordSandbox({ clock: createManualClock() });
    b = await createDiscordSandbox({ clock: createManualClock() });
  });

  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('generates 30,000 members deterministically for a seed, with role shares drawn from the same seed', () => {
    const ga = a.createGuild().guildId;
    const gb = b.createGuild().guildId;
    const goldA = a.createRole(ga, { name: 'Gold' }).id;
    const goldB = b.createRole(gb, { name: 'Gold' }).id;
    const first = a.generateGuild({ guildId: ga, members: 30_000, seed: 42, roleShares: [{ roleId: goldA, share: 0.3 }] });
    const second = b.generateGuild({ guildId: gb, members: 30_000, seed: 42, roleShares: [{ roleId: goldB, share: 0.3 }] });
    expect(first.userIds).toEqual(second.userIds);
    expect(new Set(first.userIds).size).toBe(30_000);
    for (const id of first.userIds) expect(id).toMatch(/^\d{18}$/);
    const golds = (sandbox: DiscordSandbox, g: string, role: string): number =>
      sandbox.members(g).filter((m) => m.roleIds.includes(role)).length;
    expect(golds(a, ga, goldA)).toBe(golds(b, gb, goldB));
    expect(golds(a, ga, goldA)).toBeGreaterThan(8_000);
    expect(golds(a, ga, goldA)).toBeLessThan(10_000);
    expect(a.guild(ga).memberCount).toBe(30_002);
  });

  it('gives other ids for another seed, and honours userIdFor', () => {
    const g = a.createGuild().guildId;
    const other = a.generateGuild({ guildId: g, members: 5, seed: 7 });
    const h = b.createGuild().guildId;
    const again = b.generateGuild({ guildId: h, members: 5, seed: 42 });
    expect(other.userIds).not.toEqual(again.userIds);
    const custom = a.generateGuild({ guildId: a.createGuild().guildId, members: 3, seed: 1, userIdFor: (i) => `30000000000000000${i}` });
    expect(custom.userIds).toEqual(['300000000000000000', '300000000000000001', '300000000000000002']);
  });

  it('resolves waitForMemberRole on the change itself, and times out otherwise', async () => {
    const g = a.createGuild().guildId;
    const role = a.createRole(g, { name: 'Silver' }).id;
    const { userId } = a.addMember(g);
    const granted = a.waitForMemberRole(g, userId, role, { present: true, timeoutMs: 1_000 });
    a.setMemberRolesByHand(g, userId, [role]);
    await expect(granted).resolves.toBeUndefined();
    await expect(a.waitForMemberRole(g, userId, role, { present: true, timeoutMs: 1 })).resolves.toBeUndefined();
    await expect(a.waitForMemberRole(g, userId, role, { present: false, timeoutMs: 20 })).rejects.toThrow(/did not lose/);
  });
});
