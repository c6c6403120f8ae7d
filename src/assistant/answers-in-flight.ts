import { precompile } from '../storage/precompiled.ts';
import type { AnswersInFlightTable } from '../storage/schema.ts';
import type { WriteUnit } from '../storage/write-unit.ts';

/**
 * A charged answer is "in flight" from the unit that charges it until the unit that stores it (or
 * gives the credit back): one row, written and deleted inside those units, so it exists exactly while
 * a crash would leave a charge without its answer. `recover-interrupted-answers.ts` settles the rows of
 * processes that died.
 */
const insertInFlight = precompile<AnswersInFlightTable>((db, p) =>
  db.insertInto('answers_in_flight').values({
    request_id: p('request_id'),
    organization_id: p('organization_id'),
    thread_id: p('thread_id'),
    instance_id: p('instance_id'),
    created_at: p('created_at'),
    message_id: p('message_id'),
    question_seq: p('question_seq'),
  }),
);

const deleteInFlight = precompile<{ requestId: string }>((db, p) =>
  db.deleteFrom('answers_in_flight').where('request_id', '=', p('requestId')),
);

export async function markInFlightWithin(unit: WriteUnit, row: AnswersInFlightTable): Promise<void> {
  await unit.run(insertInFlight, row);
}

export async function clearInFlightWithin(unit: WriteUnit, requestId: string): Promise<void> {
  await unit.run(deleteInFlight, { requestId });
}
