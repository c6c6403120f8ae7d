import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceList } from '../assistant/answer-sources.ts';
import { composeAnswer } from '../assistant/builtin-answerer.ts';
import { borrowedQuestion, retrievalQuery } from '../assistant/retrieval-query.ts';
import { ingestSite } from '../ingest/ingest-site.ts';
import type { Warning } from '../ingest/types.ts';
import { SiteSearch } from '../search/site-search.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { DEMO_STARTER_QUESTIONS } from '../tenancy/seed-demo.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { repoRoot } from '../testing/paths.ts';

/** The models guide's section on Ollama and other self-hosted servers. */
const MODELS_SELF_HOSTED =
  'guides/models#self-hosted-models-ollama-vllm-lm-studio-and-other-compatible-servers';

/**
 * What a new user asks the demo site (`npm start` seeds it from `docs/`) first, and the section whose
 * words the built-in answerer must quote: the first impression of Docent is these answers. A change to
 * the docs, the search or the answerer that sends one of them elsewhere fails here.
 */
const FIRST_QUESTIONS: [question: string, section: string][] = [
  // The demo widget's starter questions, as offered.
  [DEMO_STARTER_QUESTIONS[0], 'guides/widget#embed-it-in-your-docs'],
  [DEMO_STARTER_QUESTIONS[1], 'guides/self-hosting#use-postgresql'],
  [DEMO_STARTER_QUESTIONS[2], 'guides/cli#rotate-a-key'],
  ['how to embed the widget in my site', 'guides/widget#embed-it-in-your-docs'],
  ['How do I rotate an API key?', 'guides/cli#rotate-a-key'],
  ['how do I change the model to gpt-4o', 'guides/models#choose-a-model'],
  ['can I use postgres', 'guides/self-hosting#use-postgresql'],
  ['how do I deploy with docker', 'guides/deployment#the-container-image'],
  ['how do I add my docs from github', 'guides/git-sources#create-a-site-from-a-repository'],
  ['what happens when I run out of credits', 'guides/limits-and-credits#credits'],
  ['how do I make the widget dark', 'guides/widget#theming'],
  ['does it support docusaurus', 'guides/docs-frameworks'],
  ['how do I back up the database', 'guides/self-hosting#back-up-your-data'],
  ['how do I set allowed origins', 'guides/limits-and-credits#browser-use-and-allowed-origins'],
  ['how do I run it behind nginx', 'guides/self-hosting#run-behind-a-reverse-proxy'],
  ['how do I use ollama', MODELS_SELF_HOSTED],
  ['how do I use claude as the model', 'guides/models#choose-a-model'],
  ['how do I delete a site', 'guides/cli#sites-list-create-show-restrict-and-delete-sites'],
  ['how do I re-ingest after changing docs', 'guides/cli#ingest-update-a-site-from-a-docs-folder'],
  ['How do I ingest my docs?', 'quickstart#ingest-your-own-docs'],
  ['how do I see usage', 'guides/cli#usage-orgs-and-plans'],
  ['what is MCP', 'guides/agents#mcp-server'],
  ['how do I hide a page from the assistant', 'guides/docs-formats#which-pages-are-indexed'],
  ['where is my data stored', 'guides/self-hosting#where-your-data-is-stored'],
  ['does it work without an LLM', 'guides/models'],
  ['how do I give the assistant custom instructions', 'guides/models#a-model-and-instructions-per-site'],
  ['how do I search a specific version', 'guides/docs-formats#versions-and-languages'],
  ['How do I change the accent color of the widget?', 'guides/widget#theming'],
  ['does it work with Mintlify?', 'guides/docs-formats'],
  ['why do I get 429', 'api-reference/errors#retrying-safely'],
  // Typed without apostrophes, as readers do.
  ['whats the keyboard shortcut to open the chat', 'guides/widget#keyboard-and-accessibility'],
  ['whats the default rate limit', 'guides/limits-and-credits#rate-limits'],
  // Asked by new users whose answers (declines) the docs then said better.
  ['Which databases are supported?', 'guides/self-hosting#choose-a-storage-engine-sqlite-or-postgresql'],
  ['how do I rotate the webhook secret', 'guides/git-sources#over-the-admin-api'],
  // The product's name is in most of its pages: a question about it alone is answered by the landing page.
  ['what is docent', 'index'],
  ['What is Docent?', 'index'],
  // Asked of the demo in session 33, answered from the wrong section before the docs said it.
  [
    'how do I add the widget to docusaurus',
    'guides/widget#add-it-to-docusaurus-mkdocs-vitepress-or-starlight',
  ],
  ['does it work offline', 'index'],
  ['how do I scale to multiple servers', 'guides/deployment#two-or-more-replicas'],
  // Asked of the demo in session 34: answered from an example conversation, the repository instructions,
  // a URL setting, the widget guide or the admin API's `cursor` parameter before the docs said it in these
  // words.
  ['what models are supported', 'guides/models#choose-a-model'],
  ['how do I change the port', 'guides/configuration#port-and-host'],
  ['how do I set up https', 'guides/self-hosting#run-behind-a-reverse-proxy'],
  ['how do I see what questions readers ask', 'guides/console'],
  ['how do I use it from cursor', 'guides/agents#add-it-to-an-mcp-client'],
  ['how do I get an api key', 'guides/cli#keys-create-list-and-revoke-keys'],
  ['how do I limit how many questions someone can ask', 'guides/limits-and-credits#rate-limits'],
  ['how do I stream answers in next.js', 'api-reference/assistant-message-v2#call-it-from-usechat'],
  ['can I self host it', 'guides/self-hosting'],
  ['does it need a gpu', 'index'],
  ['is my data sent to openai', 'index'],
  ['can I have several docs sites', 'index'],
  ['how does search work', 'guides/search'],
  ['how do I make the assistant answer in french', 'guides/models#a-model-and-instructions-per-site'],
  ['how do I change the widget title', 'guides/widget#theming'],
  ['does the widget work on mobile', 'guides/widget#keyboard-and-accessibility'],
  ['how do I see which pages are never cited', 'guides/console#what-readers-ask'],
  ['what happens when ollama is down', 'guides/models#when-the-provider-fails'],
  [
    'how do I migrate from sqlite to postgres',
    'guides/self-hosting#choose-a-storage-engine-sqlite-or-postgresql',
  ],
  // Asked of the demo in session 35: answered from the wrong section (a request body's `required` fields,
  // git polling, the whole-product search boost, the docs frameworks, a readiness field) or declined
  // before the docs said it in these words.
  ['what are the system requirements', 'quickstart'],
  ['can docent answer in french', 'guides/models#a-model-and-instructions-per-site'],
  ['how do I shut down the server', 'quickstart#stop-the-server'],
  ['how do I switch to postgresql', 'guides/self-hosting#use-postgresql'],
  ['is there a docker compose file', 'guides/deployment#compose-two-replicas-postgresql-and-redis'],
  ['does docent support MCP', 'guides/agents#mcp-server'],
  ['how do I open the admin console', 'guides/console#sign-in'],
  ['does it support multiple versions of my docs', 'guides/docs-formats#versions-and-languages'],
  ['does it re-index automatically when I push to git', 'guides/git-sources#push-webhook'],
  ['how do I delete all my data', 'guides/self-hosting#start-over'],
  ['does docent send my data to a third party', 'index'],
  ['what port does it run on', 'guides/configuration#port-and-host'],
  ['what happens when the LLM provider is down', 'guides/models#when-the-provider-fails'],
  [
    'what is the difference between a public key and an admin key',
    'guides/cli#keys-create-list-and-revoke-keys',
  ],
  ['how do I ask a question with the api', 'quickstart#ask-the-demo-site-a-question'],
  ['does it use embeddings', 'guides/search#semantic-retrieval-with-embeddings-optional'],
  ['how many messages can a user send per day', 'guides/limits-and-credits#rate-limits'],
  ['how do I see what users asked', 'guides/console'],
  ['can I change the widget button text', 'guides/widget#in-your-docs-language'],
  ['can I index a website by url', 'guides/docs-formats'],
  ['which doc formats are supported', 'guides/docs-formats#supported-site-layouts'],
  // Two letters swapped in the question word (stop-words.ts).
  ['waht models are supported', 'guides/models#choose-a-model'],
  // Session 42: answered with how to use Ollama, whose heading then said "OpenAI-compatible".
  ['how do I use OpenAI', 'guides/models#choose-a-model'],
  ['how do I use an openai compatible server', MODELS_SELF_HOSTED],
  ['how do I use a local model', MODELS_SELF_HOSTED],
  // Session 42: answered with the readiness check's `database` field before the heading named SQLite.
  ['can I use sqlite', 'guides/self-hosting#choose-a-storage-engine-sqlite-or-postgresql'],
  // Session 42: answered from the search index's format version, the widget's `window.Docent`, resuming
  // a stream "for 5 seconds" and a scale benchmark before the docs said it in these words.
  ['what node version do I need', 'quickstart'],
  ['does it work on windows', 'quickstart'],
  ['how do I add a second site', 'guides/cli#sites-list-create-show-restrict-and-delete-sites'],
  ['how big can my docs be', 'guides/docs-formats#large-sites'],
  // Session 42: answered from the widget's caching before the self-hosting guide said how to upgrade.
  ['how do I upgrade docent', 'guides/self-hosting#upgrade-docent'],
  ['how do I upgrade to a new version', 'guides/self-hosting#upgrade-docent'],
  ['how do I set the widget position', 'guides/widget#theming'],
  // Answered from the feedback API's route list before the widget guide said the widget is optional.
  ['can I use it without the widget', 'guides/widget'],
  ['can I build my own chat ui', 'guides/widget'],
  // Declined before the self-hosting guide used the word.
  ['how do I monitor docent', 'guides/self-hosting#check-health-and-readiness'],
  // Answered from the CLI's init before the guide said readers are not signed in.
  [
    'how do I restrict who can use the assistant',
    'guides/limits-and-credits#browser-use-and-allowed-origins',
  ],
  // Answered from allowed origins, a credit-charging detail, creating an organization and the search
  // filters (or declined) before the guides said it in these words.
  ['I lost my admin key', 'guides/cli#keys-create-list-and-revoke-keys'],
  ['how do I reset the admin key', 'guides/cli#keys-create-list-and-revoke-keys'],
  ['how do I see how many credits are left', 'guides/cli#usage-orgs-and-plans'],
  ['how do I add more credits', 'guides/cli#usage-orgs-and-plans'],
  ['how do I reindex everything', 'guides/cli#ingest-update-a-site-from-a-docs-folder'],
  ['how do I translate the widget', 'guides/widget#in-your-docs-language'],
];

/** Follow-ups as readers type them after a first question, and the section the answer must quote. */
const FOLLOW_UPS: [previous: string, question: string, section: string][] = [
  ['How do I install Docent?', 'What about Docker?', 'guides/deployment#the-container-image'],
  [
    'which database does docent use',
    'can I use postgres instead?',
    'guides/self-hosting#choose-a-storage-engine-sqlite-or-postgresql',
  ],
  ['how do I ingest my docs', 'and from a git repo?', 'guides/git-sources#create-a-site-from-a-repository'],
  ['how do i add the chat widget to my site', 'can I change its colors?', 'guides/widget#theming'],
  ['How do I rotate the webhook secret?', 'And over the API?', 'guides/git-sources#over-the-admin-api'],
];

describe("the demo site's answers to a new user's first questions", () => {
  let database: TestDatabase;
  let siteId: string;
  let search: SiteSearch;
  let warnings: Warning[];

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const organizationId = (await createOrganization(database.storage, { name: 'demo' })).id;
    // Named as the demo is seeded: after its docs (docs.json's "Docent"), which questions about it name.
    siteId = (await createSite(database.storage, { organizationId, domain: 'demo', name: 'Docent' })).id;
    ({ warnings } = await ingestSite(database.storage, siteId, `${repoRoot}/docs`));
    search = new SiteSearch(database.storage);
  });

  it('are ingested from docs that give no warning (prose like "Ask <site name>" is read as a tag and lost)', () => {
    expect(warnings).toEqual([]);
  });
  afterAll(async () => {
    await database.drop();
  });

  it.each(FOLLOW_UPS)('%s, then %s: quotes %s', async (previous, question, section) => {
    const messages = [
      { id: 'm1', role: 'user' as const, content: previous, parts: [] },
      { id: 'm2', role: 'assistant' as const, content: 'An earlier answer.', parts: [] },
      { id: 'm3', role: 'user' as const, content: question, parts: [] },
    ];
    const top = await search.search(siteId, retrievalQuery(messages), { limit: 5 });
    const answer = composeAnswer(question, SourceList.of(top).all, [], borrowedQuestion(question, previous));
    expect(answer.covered, answer.text).toBe(true);
    const cited = top[Number(answer.citedIds[0]) - 1];
    expect(cited && (cited.anchor === null ? cited.pagePath : `${cited.pagePath}#${cited.anchor}`)).toBe(
      section,
    );
  });

  it('says which port it listens on by default (a new user got the valid range instead)', async () => {
    const question = 'What is the default port?';
    const top = await search.search(
      siteId,
      retrievalQuery([{ id: 'm1', role: 'user', content: question, parts: [] }]),
      {
        limit: 5,
      },
    );
    const answer = composeAnswer(question, SourceList.of(top).all);
    expect(answer.text.split('\n')[0]).toContain('`3000`');
  });

  it.each(FIRST_QUESTIONS)('%s: quotes %s, in whole sentences', async (question, section) => {
    const messages = [{ id: 'm1', role: 'user' as const, content: question, parts: [] }];
    const top = await search.search(siteId, retrievalQuery(messages), { limit: 5 });
    const answer = composeAnswer(question, SourceList.of(top).all);
    expect(answer.covered, answer.text).toBe(true);
    const cited = top[Number(answer.citedIds[0]) - 1];
    expect(cited && (cited.anchor === null ? cited.pagePath : `${cited.pagePath}#${cited.anchor}`)).toBe(
      section,
    );
    // No quoted sentence is cut where the docs' source wrapped a line ("…every page (in the <head> or
    // before [1]"): none ends on a word that cannot end one.
    for (const unit of answer.text.split(/\s*\[\d+\]/)) {
      expect(unit.trim(), answer.text).not.toMatch(
        /\b(a|an|the|to|of|or|and|before|for|with|in|on|by|from)$/i,
      );
    }
  });
});
