import { Hono } from 'hono';
import { listQuestionGroups, MAX_GROUPS_PAGE } from '../../../analytics/question-groups.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import {
  checkFilterSite,
  pagedQuery,
  pagedQueryDoc,
  pageOf,
  questionGroupSchema,
} from './analytics-schemas.ts';

const groupsQuery = pagedQuery(MAX_GROUPS_PAGE);

/** `gaps` (groups by unanswered questions) and `questions` (top questions by count): the same listing. */
const kinds = [
  {
    path: '/v1/admin/analytics/gaps',
    kind: 'gaps',
    summary: 'Coverage gaps: groups of questions that went unanswered, most unanswered first',
  },
  {
    path: '/v1/admin/analytics/questions',
    kind: 'top',
    summary: 'Top questions: groups of questions that mean the same thing, most asked first',
  },
] as const;

const operationOf = (k: (typeof kinds)[number]): Operation => ({
  method: 'get',
  path: k.path,
  summary: k.summary,
  description:
    'Questions are grouped when they are stored (see the README, "Owner analytics"); `closestPages` are the ' +
    "pages the site's search ranks first for the group's label.",
  tags: ['Analytics'],
  security: [{ adminKey: [] }],
  request: { query: pagedQueryDoc(MAX_GROUPS_PAGE) },
  responses: {
    200: { description: 'A page of question groups', ...jsonContent(pageOf(questionGroupSchema)) },
    ...errorResponses(400, 401, 404, 429),
  },
});

const routeOf =
  (k: (typeof kinds)[number]) =>
  (deps: AdminDeps): Hono<AdminEnv> =>
    new Hono<AdminEnv>().get(k.path, validate('query', groupsQuery), async (c) => {
      const { filter, cursor, limit } = c.req.valid('query');
      const organizationId = c.get('admin').organization.id;
      await checkFilterSite(deps.storage, organizationId, filter);
      return c.json(
        await listQuestionGroups(deps.storage, organizationId, filter, {
          kind: k.kind,
          limit,
          cursor,
          search: deps.search,
        }),
      );
    });

export const [gapsOperation, topQuestionsOperation] = kinds.map(operationOf) as [Operation, Operation];
export const [gapsRoute, topQuestionsRoute] = kinds.map(routeOf) as [
  (deps: AdminDeps) => Hono<AdminEnv>,
  (deps: AdminDeps) => Hono<AdminEnv>,
];
