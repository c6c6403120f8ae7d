import { describe, expect, it } from 'vitest';
import { createTestDatabase } from './databases.ts';
import { seedAnalytics } from './seed-analytics.ts';

describe('seedAnalytics', () => {
  it('writes the same data for the same seed and end date (keys aside)', async () => {
    const now = new Date('2025-03-01T00:00:00.000Z');
    const dump = async (seed: number) => {
      const database = await createTestDatabase('sqlite');
      try {
        const seeded = await seedAnalytics(database.storage, {
          organizations: 2,
          threadsPerOrganization: 40,
          now,
          seed,
        });
        const { db } = database.storage;
        return {
          counts: {
            threads: seeded.threads,
            messages: seeded.messages,
            feedback: seeded.feedback,
            groups: seeded.groups,
          },
          threads: await db.selectFrom('threads').select(['id', 'fp', 'updated_at']).orderBy('id').execute(),
          messages: await db.selectFrom('thread_messages').selectAll().orderBy('id').execute(),
          votes: await db.selectFrom('message_feedback').selectAll().orderBy('message_id').execute(),
          groups: await db.selectFrom('question_groups').selectAll().orderBy('id').execute(),
        };
      } finally {
        await database.drop();
      }
    };
    const first = await dump(7);
    expect(first.counts.threads).toBe(80);
    expect(first.counts.messages).toBeGreaterThan(160);
    expect(first.messages.every((m) => m.created_at < now.toISOString())).toBe(true);
    expect(await dump(7)).toEqual(first);
    expect((await dump(8)).messages).not.toEqual(first.messages);
  });
});
