import type { ConsoleSession } from '../../../tenancy/console-sessions.ts';
import type { AppEnv } from '../../app-env.ts';

/** Console routes run with the signed-in session. */
export interface ConsoleEnv {
  Variables: AppEnv['Variables'] & { session: ConsoleSession };
}
