import type { Organization } from '../tenancy/organizations.ts';
import type { Plan } from '../tenancy/plans.ts';
import type { AppEnv } from './app-env.ts';

export interface AdminCaller {
  organization: Organization;
  plan: Plan;
  keyId: string;
}

/** Context of `/v1/admin/*` routes: the admin middleware has authenticated the caller. */
export interface AdminEnv {
  Variables: AppEnv['Variables'] & { admin: AdminCaller };
}
