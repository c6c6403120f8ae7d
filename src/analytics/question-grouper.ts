/**
 * Question grouping over storage: each site's most recently asked groups are kept in memory (a
 * `GroupIndex`, see question-grouping.ts) so that putting a question in its group costs no read on the
 * request path, only the write of the group's row, in the same unit as the question.
 *
 * The memory is written through: a group changed here is changed in this process's index at once and in
 * the database when the unit commits. It is reloaded from the database every `GROUPS_REFRESH_MS` (in
 * the background), which picks up groups other processes made. A unit that rolls back (a refused
 * charge) leaves its group in memory until then; the group row is an upsert, so a later question of
 * that group writes it anyway.
 */
import { siteGoneOr } from '../storage/constraint-violations.ts';
import type { Storage } from '../storage/database.ts';
import { newId, nowIso } from '../storage/ids.ts';
import { precompile } from '../storage/precompiled.ts';
import type { QuestionGroupsTable } from '../storage/schema.ts';
import type { WriteUnit } from '../storage/write-unit.ts';
import { GroupIndex, type GroupSignature, parseSignature, questionTerms } from './question-grouping.ts';

/** Groups per site kept in memory, the most recently asked: the ones a new question is compared with. */
export const MAX_GROUPS_PER_SITE_IN_MEMORY = 500;
/** Sites whose groups are kept in memory at once; the least recently asked is dropped (and reloaded). */
export const MAX_SITES_IN_MEMORY = 32;
/** How often a site's groups are reloaded, for the groups other processes made. */
export const GROUPS_REFRESH_MS = 60_000;

const upsertGroup = precompile<QuestionGroupsTable>((db, p) =>
  db
    .insertInto('question_groups')
    .values({
      id: p('id'),
      organization_id: p('organization_id'),
      site_id: p('site_id'),
      label: p('label'),
      signature: p('signature'),
      created_at: p('created_at'),
      last_seen_at: p('last_seen_at'),
    })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        signature: eb.ref('excluded.signature'),
        last_seen_at: eb.ref('excluded.last_seen_at'),
      })),
    ),
);

interface SiteGroups {
  index: GroupIndex;
  loadedAt: number;
  reloading?: Promise<void> | undefined;
}

export interface GroupQuestion {
  organizationId: string;
  siteId: string;
  question: string;
  /** The question's `filter.language`: its terms are stemmed for it. */
  language?: string | null | undefined;
}

export class QuestionGrouper {
  readonly #sites = new Map<string, SiteGroups>();
  readonly #loading = new Map<string, Promise<SiteGroups>>();

  constructor(
    private readonly storage: Storage,
    private readonly options: { refreshMs?: number; now?: () => number } = {},
  ) {}

  /**
   * Makes the site's groups ready for `assignWithin`: undefined when they are (the request path then
   * awaits nothing), else a promise of the first load. A stale index is reloaded in the background.
   */
  prepare(siteId: string): Promise<unknown> | undefined {
    const site = this.#sites.get(siteId);
    if (site === undefined) return this.#load(siteId);
    const now = this.options.now?.() ?? Date.now();
    if (
      site.reloading === undefined &&
      now - site.loadedAt >= (this.options.refreshMs ?? GROUPS_REFRESH_MS)
    ) {
      site.reloading = this.#read(siteId)
        .then((fresh) => {
          if (this.#sites.get(siteId) === site) this.#sites.set(siteId, fresh);
        })
        .catch(() => {
          // A failed reload keeps the index it has; the next question tries again.
          site.reloading = undefined;
          site.loadedAt = now;
        });
    }
    return undefined;
  }

  /**
   * Puts the question in its group and writes the group's row in `unit`; returns the group's id, or null
   * for a question without content words ("hi?"). Call `prepare` first: without it the site starts with
   * no groups in memory.
   */
  async assignWithin(unit: WriteUnit, input: GroupQuestion): Promise<string | null> {
    const site = this.#sites.get(input.siteId) ?? this.#install(input.siteId, emptySite(this.#clock()));
    this.#use(input.siteId, site);
    const now = nowIso();
    const assignment = site.index.assign(questionTerms(input.question, input.language), () => newId('qgr'));
    if (assignment === null) return null;
    try {
      await unit.run(upsertGroup, {
        id: assignment.groupId,
        organization_id: input.organizationId,
        site_id: input.siteId,
        label: input.question.slice(0, MAX_LABEL_CHARS),
        signature: JSON.stringify(assignment.signature),
        created_at: now,
        last_seen_at: now,
      });
    } catch (error) {
      throw siteGoneOr(error);
    }
    return assignment.groupId;
  }

  /** Forgets a site's groups (a test, or a site deleted). */
  forget(siteId: string): void {
    this.#sites.delete(siteId);
  }

  #clock(): number {
    return this.options.now?.() ?? Date.now();
  }

  #load(siteId: string): Promise<SiteGroups> {
    let loading = this.#loading.get(siteId);
    if (loading === undefined) {
      loading = this.#read(siteId)
        .then((site) => this.#install(siteId, this.#sites.get(siteId) ?? site))
        .finally(() => this.#loading.delete(siteId));
      this.#loading.set(siteId, loading);
    }
    return loading;
  }

  async #read(siteId: string): Promise<SiteGroups> {
    const loadedAt = this.#clock();
    const rows = await this.storage.db
      .selectFrom('question_groups')
      .select(['id', 'signature'])
      .where('site_id', '=', siteId)
      .orderBy('last_seen_at', 'desc')
      .orderBy('id', 'desc')
      .limit(MAX_GROUPS_PER_SITE_IN_MEMORY)
      .execute();
    const index = new GroupIndex(MAX_GROUPS_PER_SITE_IN_MEMORY);
    // Oldest first, so the most recently asked are the most recently used in the index.
    for (const row of rows.reverse()) index.load(row.id, safeSignature(row.signature));
    return { index, loadedAt };
  }

  #install(siteId: string, site: SiteGroups): SiteGroups {
    this.#use(siteId, site);
    return site;
  }

  /** Marks the site most recently used; past `MAX_SITES_IN_MEMORY` the least recently used goes. */
  #use(siteId: string, site: SiteGroups): void {
    this.#sites.delete(siteId);
    this.#sites.set(siteId, site);
    while (this.#sites.size > MAX_SITES_IN_MEMORY) {
      const oldest = this.#sites.keys().next().value;
      if (oldest === undefined) break;
      this.#sites.delete(oldest);
    }
  }
}

/** Characters of a question kept as its group's label. */
export const MAX_LABEL_CHARS = 500;

function emptySite(loadedAt: number): SiteGroups {
  return { index: new GroupIndex(MAX_GROUPS_PER_SITE_IN_MEMORY), loadedAt };
}

function safeSignature(text: string): GroupSignature {
  try {
    return parseSignature(text);
  } catch {
    // A damaged row is a group with nothing to compare against; it still counts its questions.
    return { t: [], c: [], n: 1 };
  }
}

const grouperByStorage = new WeakMap<Storage, QuestionGrouper>();

/** The process's grouper for this storage handle (one per handle, so its memory matches the database). */
export function questionGrouperFor(storage: Storage): QuestionGrouper {
  let grouper = grouperByStorage.get(storage);
  if (grouper === undefined) {
    grouper = new QuestionGrouper(storage);
    grouperByStorage.set(storage, grouper);
  }
  return grouper;
}
