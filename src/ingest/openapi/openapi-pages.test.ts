import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../testing/paths.ts';
import { loadDocsFolder } from '../load-docs-folder.ts';
import type { LoadedSite, ParsedPage } from '../types.ts';
import { MAX_OPERATION_FIELDS } from './schema-fields.ts';

const FIXTURE = path.join(repoRoot, 'src/ingest/openapi/fixtures/api-site');

const page = (site: LoadedSite, id: string): ParsedPage => {
  const found = site.pages.find((p) => p.path === id);
  if (!found) throw new Error(`page ${id} not loaded; have ${site.pages.map((p) => p.path).join(', ')}`);
  return found;
};
const text = (p: ParsedPage): string => p.chunks.map((c) => c.text).join('\n\n');
const section = (p: ParsedPage, heading: string): string =>
  p.chunks
    .filter((c) => c.headings[0] === heading)
    .map((c) => c.text)
    .join('\n');

describe('OpenAPI reference pages (fixture site: 3.0 YAML, 3.1 JSON, Swagger 2.0)', () => {
  let site: LoadedSite;
  beforeAll(async () => {
    site = await loadDocsFolder(FIXTURE);
  });

  it('generates a page per operation entry and per operation of a section, in navigation order', () => {
    expect(site.pages.map((p) => [p.path, p.navOrder, p.navGroup])).toEqual([
      ['index', 0, null],
      ['reference/get-order', 1, 'Orders'],
      ['api-reference/orders/list-orders', 2, 'Orders'],
      // `x-mint.href` names the page.
      ['store/orders/create', 3, 'Orders'],
      // A trailing slash in the entry still finds `/orders/{orderId}`.
      ['api-reference/orders/get-an-order', 4, 'Orders'],
      // An entry naming its own file (3.1 JSON); the operation has no tag.
      ['api-reference/get-a-user', 5, 'Orders'],
      // A section with `{ source, directory }` and no entries: every operation, grouped by tag.
      ['legacy-api/coupons/create-coupon', 6, 'Coupons'],
      ['legacy-api/coupons/upload-a-receipt', 7, 'Coupons'],
      // A section whose URL names a file of the folder; its GET was placed above already; the webhook.
      ['api-reference/user-created', 8, null],
    ]);
  });

  it('leaves out x-hidden and x-excluded operations', () => {
    // DELETE /orders/{orderId} is listed in the navigation but x-hidden; /internal/reindex is x-excluded.
    expect(site.skipped).toBe(1);
    expect(site.pages.some((p) => text(p).includes('DELETE') || text(p).includes('Reindex'))).toBe(false);
  });

  it('warns with file, line or JSON pointer: remote spec, missing operation, broken $ref', () => {
    expect(site.warnings).toEqual([
      {
        file: 'docs.json',
        line: 30,
        message:
          'OpenAPI file "https://api.example.com/openapi.json" is a remote URL; remote specs are not fetched during ingestion; its operations are not indexed',
      },
      {
        file: 'docs.json',
        line: 19,
        message: 'navigation entry "GET /nowhere": specs/store-3.0.yaml has no such operation; not indexed',
      },
      {
        file: 'specs/store-3.0.yaml',
        message: expect.stringMatching(
          /^broken \$ref at #\/paths\/~1orders\/post\/responses\/422: Missing \$ref pointer "#\/components\/responses\/Unprocessable"/,
        ),
      },
      {
        file: 'specs/users-3.1.json',
        message: expect.stringMatching(
          /^broken \$ref at #\/paths\/~1users~1\{id\}\/get\/responses\/200\/content\/application~1json\/schema\/properties\/manager:/,
        ),
      },
    ]);
  });

  it('writes method, path, base URL, authorization and parameters (OpenAPI 3.0, YAML)', () => {
    const order = page(site, 'api-reference/orders/get-an-order');
    expect(order.title).toBe('Get an order');
    expect(text(order)).toContain('`GET /orders/{orderId}`');
    expect(text(order)).toContain('Base URL: `https://api.shop.example/v1`');
    expect(section(order, 'Authorization')).toBe(
      '- `apiKey` (apiKey, in header, X-Shop-Key): Your secret shop key.',
    );
    // A path-item parameter applies to the operation.
    expect(section(order, 'Path parameters')).toBe('- `orderId` (string, required): The order to read');
    const list = page(site, 'api-reference/orders/list-orders');
    expect(section(list, 'Query parameters')).toBe(
      [
        '- `status` (string): Only orders in this state. One of: `"pending"`, `"shipped"`, `"delivered"`.',
        '- `page_size` (integer): Default: `20`.',
      ].join('\n'),
    );
  });

  it('flattens $ref schemas into dotted fields and cuts a $ref cycle', () => {
    const create = page(site, 'store/orders/create');
    expect(create.description).toBe('Places a new order for the signed-in customer.');
    expect(section(create, 'Request body (application/json)')).toBe(
      [
        // `requestBody.required`.
        'Required.',
        '',
        '- `id` (string, required): Order identifier',
        '- `status` (string): One of: `"pending"`, `"shipped"`, `"delivered"`. Default: `"pending"`.',
        '- `items` (array of object, required)',
        '- `items[].sku` (string): Stock keeping unit of the product',
        '- `items[].quantity` (integer): Minimum: `1`.',
        '- `items[].category` (object)',
        '- `items[].category.name` (string): Category name',
        '- `items[].category.parent` (object): Same structure as its parent (recursive).',
      ].join('\n'),
    );
    expect(section(create, 'Request example')).toContain('"sku": "TSHIRT-RED-M"');
    expect(section(create, 'Code samples')).toContain('curl -X POST https://api.shop.example/v1/orders');
  });

  it('reads OpenAPI 3.1 type arrays, header parameters and webhooks (JSON)', () => {
    const user = page(site, 'api-reference/get-a-user');
    expect(section(user, 'Header parameters')).toBe('- `X-Request-Id` (string or null): Correlates logs');
    expect(section(user, 'Response 200')).toContain(
      '- `email` (string or null (email)): Primary email address',
    );
    const webhook = page(site, 'api-reference/user-created');
    expect(text(webhook)).toContain('`WEBHOOK userCreated`');
    expect(section(webhook, 'Request body (application/json)')).toBe(
      "- `userId` (string): The new user's id",
    );
  });

  it('reads Swagger 2.0 bodies, form fields, host and basePath', () => {
    const coupon = page(site, 'legacy-api/coupons/create-coupon');
    expect(text(coupon)).toContain('Base URL: `https://legacy.shop.example/api`');
    expect(section(coupon, 'Authorization')).toBe('- `basic` (basic)');
    expect(section(coupon, 'Request body (application/json)')).toBe(
      'Required.\n\n- `code` (string, required): Coupon code printed on the receipt\n- `percent_off` (number): Maximum: `100`.',
    );
    expect(section(coupon, 'Response 200')).toContain('- `code` (string, required)');
    const upload = page(site, 'legacy-api/coupons/upload-a-receipt');
    expect(section(upload, 'Request body (form fields)')).toBe('- `file` (file, required): Scanned receipt');
  });

  it('appends the operation named by `openapi:` front matter to the MDX page, from the inherited spec', () => {
    const fetchOrder = page(site, 'reference/get-order');
    expect(fetchOrder.title).toBe('Fetch one order');
    expect(fetchOrder.chunks[0]?.text).toContain('Use this endpoint to look up an order after checkout.');
    expect(section(fetchOrder, 'Path parameters')).toBe('- `orderId` (string, required): The order to read');
  });
});

describe('re-ingesting OpenAPI pages', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'docent-openapi-'));
    cpSync(FIXTURE, root, { recursive: true });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reuses every page whose spec and front matter are unchanged, and re-parses those of a changed spec', async () => {
    const first = await loadDocsFolder(root);
    const known = Object.fromEntries(first.pages.map((p) => [p.path, p.contentHash]));
    const again = await loadDocsFolder(root, { known });
    expect(again.pages.filter((p) => !p.reused).map((p) => p.path)).toEqual([]);
    expect(again.pages.map((p) => p.contentHash)).toEqual(first.pages.map((p) => p.contentHash));

    const spec = path.join(root, 'specs/legacy-2.0.json');
    writeFileSync(spec, readFileSync(spec, 'utf8').replace('Scanned receipt', 'Photo of the receipt'));
    const changed = await loadDocsFolder(root, { known });
    expect(changed.pages.filter((p) => !p.reused).map((p) => p.path)).toEqual([
      'legacy-api/coupons/create-coupon',
      'legacy-api/coupons/upload-a-receipt',
    ]);
    expect(text(page(changed, 'legacy-api/coupons/upload-a-receipt'))).toContain('Photo of the receipt');
  });
});

describe('hostile OpenAPI files', () => {
  let root: string;
  let server: Server;
  let hits = 0;
  const SECRET = 'OUTSIDE-OPENAPI-SECRET-77e1';

  const docs = (files: Record<string, string>, navigation: unknown): string => {
    const dir = mkdtempSync(path.join(root, 'site-'));
    writeFileSync(path.join(dir, 'docs.json'), JSON.stringify({ navigation }));
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), content);
    }
    return dir;
  };
  const op = (extra: Record<string, unknown>) => ({
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: { '/x': { get: { summary: 'X', responses: { '200': { description: 'ok', ...extra } } } } },
  });

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'docent-openapi-hostile-'));
    writeFileSync(path.join(root, 'secret.json'), JSON.stringify({ type: 'string', description: SECRET }));
    server = createServer((_request, response) => {
      hits++;
      response.end(JSON.stringify({ type: 'string', description: SECRET }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps a Markdown page at the path a generated page would take, with a warning, and no -1 page', async () => {
    const spec = {
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      paths: {
        '/things': {
          get: { summary: 'List things', tags: ['Things'], responses: { '200': { description: 'ok' } } },
        },
        '/mine': {
          get: {
            summary: 'Mine',
            'x-mint': { href: '/mine/page' },
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    };
    const dir = docs(
      {
        'href.json': JSON.stringify(spec),
        'api-reference/things/list-things.mdx': '---\ntitle: Things, by hand\n---\n\nWritten by hand.\n',
        'mine/page.mdx': '---\ntitle: Mine, by hand\n---\n\nAlso by hand.\n',
      },
      {
        groups: [
          { group: 'Href', openapi: 'href.json' },
          { group: 'Plain', pages: ['api-reference/things/list-things', 'mine/page'] },
        ],
      },
    );
    const site = await loadDocsFolder(dir);
    // Before: the generated pages took list-things-1 and page-1, links the hosted docs do not have.
    expect(site.pages.map((p) => [p.path, p.title]).sort()).toEqual([
      ['api-reference/things/list-things', 'Things, by hand'],
      ['mine/page', 'Mine, by hand'],
    ]);
    expect(site.warnings.map((w) => w.message).sort()).toEqual([
      'GET /mine would be page "mine/page", which a Markdown page already is; the Markdown page is kept',
      'GET /things would be page "api-reference/things/list-things", which a Markdown page already is; the Markdown page is kept',
    ]);
  });

  it('says what each item of a list parameter may be, and merges a field allOf parts both define', async () => {
    const pet = {
      type: 'object',
      properties: { type: { type: 'string', enum: ['dog', 'cat', 'bird'] }, name: { type: 'string' } },
    };
    const spec = {
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      components: { schemas: { Pet: pet } },
      paths: {
        '/pets': {
          get: {
            summary: 'List pets',
            parameters: [
              {
                name: 'status',
                in: 'query',
                description: 'Filter by status.',
                schema: {
                  type: 'array',
                  items: { type: 'string', enum: ['available', 'pending', 'sold'], default: 'available' },
                },
              },
            ],
            responses: { '200': { description: 'ok' } },
          },
        },
        '/dogs': {
          post: {
            summary: 'Add a dog',
            requestBody: {
              content: {
                'application/json': {
                  schema: {
                    allOf: [
                      { $ref: '#/components/schemas/Pet' },
                      {
                        properties: {
                          type: { type: 'string', enum: ['dog'] },
                          name: { type: 'string', description: 'Its name.' },
                        },
                      },
                    ],
                  },
                },
              },
            },
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    };
    const dir = docs(
      { 'pets.json': JSON.stringify(spec) },
      { groups: [{ group: 'API', openapi: 'pets.json' }] },
    );
    const site = await loadDocsFolder(dir);
    const list = text(page(site, 'api-reference/list-pets'));
    // Before: "`status` (array of string): Filter by status." and nothing of its values.
    expect(list).toContain(
      '- `status` (array of string): Filter by status. Each one of: `"available"`, `"pending"`, `"sold"`. Default: `"available"`.',
    );
    const add = text(page(site, 'api-reference/add-a-dog'));
    // Before: `type` and `name` twice each, with two enums.
    expect(add.match(/- `type`/g)).toHaveLength(1);
    expect(add.match(/- `name`/g)).toHaveLength(1);
    expect(add).toContain('- `type` (string): One of: `"dog"`.');
    expect(add).toContain('- `name` (string): Its name.');
  });

  it('keeps a request body without fields, saying its type and that it is required', async () => {
    const body = (schema: unknown) => ({
      requestBody: { required: true, content: { 'application/json': { schema } } },
      responses: { '200': { description: 'ok' } },
    });
    const spec = {
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      paths: {
        '/value': {
          put: { summary: 'Set the value', ...body({ oneOf: [{ type: 'string' }, { type: 'integer' }] }) },
        },
        '/tags': { put: { summary: 'Set the tags', ...body({ type: 'array', items: { type: 'string' } }) } },
      },
    };
    const dir = docs(
      { 'value.json': JSON.stringify(spec) },
      { groups: [{ group: 'API', openapi: 'value.json' }] },
    );
    const site = await loadDocsFolder(dir);
    // Before: no "Request body" section at all.
    expect(section(page(site, 'api-reference/set-the-value'), 'Request body (application/json)')).toBe(
      'Required.\n\nType: string or integer.',
    );
    expect(section(page(site, 'api-reference/set-the-tags'), 'Request body (application/json)')).toBe(
      'Required.\n\nType: array of string.',
    );
  });

  it('finds an operation entry in any file of an openapi list, in order', async () => {
    const spec = (route: string, summary: string) => ({
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      paths: { [route]: { get: { summary, responses: { '200': { description: 'ok' } } } } },
    });
    const dir = docs(
      {
        'one.json': JSON.stringify(spec('/pets', 'List pets')),
        'two.json': JSON.stringify(spec('/second', 'Second')),
      },
      {
        groups: [
          {
            group: 'API',
            openapi: ['one.json', 'two.json'],
            pages: ['GET /pets', 'GET /second', 'GET /third'],
          },
        ],
      },
    );
    const site = await loadDocsFolder(dir);
    // Before: "GET /second": one.json has no such operation.
    expect(site.pages.map((p) => p.path).sort()).toEqual(['api-reference/list-pets', 'api-reference/second']);
    expect(site.warnings.map((w) => w.message)).toEqual([
      'navigation entry "GET /third": one.json, two.json have no such operation; not indexed',
    ]);
  });

  it('reads operations of path items and webhooks shared through components/pathItems', async () => {
    const spec = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      components: {
        pathItems: {
          Users: {
            get: {
              summary: 'List users',
              description: 'Every user.',
              responses: { '200': { description: 'ok' } },
            },
          },
        },
      },
      paths: { '/users': { $ref: '#/components/pathItems/Users' } },
      webhooks: { userCreated: { $ref: '#/components/pathItems/Users' } },
    };
    const dir = docs(
      { 'shared.json': JSON.stringify(spec) },
      { groups: [{ group: 'API', openapi: 'shared.json' }] },
    );
    const site = await loadDocsFolder(dir);
    // Before: neither page, and no warning.
    expect(site.pages.map((p) => p.path).sort()).toEqual([
      'api-reference/list-users',
      'api-reference/list-users-1',
    ]);
    expect(text(page(site, 'api-reference/list-users'))).toContain('Every user.');
    expect(site.warnings).toEqual([]);
  });

  it('generates no second page for an operation an MDX page of the section shows', async () => {
    const get = (summary: string) => ({
      get: { summary, tags: ['Pets'], responses: { '200': { description: 'ok' } } },
    });
    const spec = {
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      paths: {
        '/pets': get('List pets'),
        '/pets/{petId}': get('Get a pet'),
        '/toys': get('List toys'),
        '/v1/pets': get('List pets v1'),
      },
    };
    const dir = docs(
      {
        'openapi.json': JSON.stringify(spec),
        'api-reference/list-pets.mdx': '---\ntitle: Pets\nopenapi: GET /pets\n---\n\nAll the pets.\n',
        'api-reference/get-pet.mdx':
          "---\ntitle: One pet\nopenapi: 'GET /pets/{petId}/'\n---\n\nOne of them.\n",
      },
      {
        groups: [
          {
            group: 'API',
            openapi: 'openapi.json',
            pages: ['api-reference/list-pets', 'api-reference/get-pet'],
          },
        ],
      },
    );
    const site = await loadDocsFolder(dir);
    // Before: six pages, the two operations the MDX pages show generated again beside them.
    expect(site.pages.map((p) => p.path)).toEqual([
      'api-reference/list-pets',
      'api-reference/get-pet',
      'api-reference/pets/list-toys',
      'api-reference/pets/list-pets-v1',
    ]);
    expect(text(page(site, 'api-reference/list-pets'))).toContain('All the pets.');
  });

  it('reads YAML merge keys, shows exclusive bounds, multiples, item counts and constants, and warns of a spec without operations', async () => {
    const yaml = [
      'openapi: 3.0.0',
      'info: { title: t, version: "1" }',
      'x-defaults: &ok',
      '  description: Done.',
      '  content:',
      '    application/json:',
      '      schema:',
      '        type: object',
      '        properties:',
      '          count: { type: integer, minimum: 0, exclusiveMinimum: true, multipleOf: 5 }',
      '          tags: { type: array, items: { type: string }, minItems: 1, maxItems: 3 }',
      '          kind: { type: string, const: pet }',
      'paths:',
      '  /count:',
      '    get:',
      '      summary: Count',
      '      responses:',
      '        "200":',
      '          <<: *ok',
    ].join('\n');
    const empty = JSON.stringify({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} });
    const dir = docs(
      { 'count.yaml': yaml, 'empty.json': empty },
      {
        groups: [
          { group: 'API', openapi: 'count.yaml' },
          { group: 'None', openapi: 'empty.json' },
        ],
      },
    );
    const site = await loadDocsFolder(dir);
    // Before: the merged response had no fields, and the bound read "Minimum: `0`" though 0 is excluded.
    expect(section(page(site, 'api-reference/count'), 'Response 200')).toBe(
      [
        'Done.',
        '',
        '- `count` (integer): More than: `0`. Multiple of: `5`.',
        '- `tags` (array of string): Minimum items: `1`. Maximum items: `3`.',
        '- `kind` (string): Always `"pet"`.',
      ].join('\n'),
    );
    expect(site.warnings).toEqual([
      {
        file: 'empty.json',
        message: 'declares no operations (no "paths" or "webhooks" with one); no page is made from it',
      },
    ]);
  });

  it('marks a structure that holds itself through a list or a choice as recursive', async () => {
    const spec = {
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      components: {
        schemas: {
          Node: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
              parent: { oneOf: [{ type: 'string' }, { $ref: '#/components/schemas/Node' }] },
            },
          },
        },
      },
      paths: {
        '/tree': {
          get: {
            summary: 'Tree',
            responses: {
              '200': {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
              },
            },
          },
        },
      },
    };
    const site = await loadDocsFolder(
      docs({ 'tree.json': JSON.stringify(spec) }, { groups: [{ group: 'API', openapi: 'tree.json' }] }),
    );
    // Before: "`children` (array of object)" and "`parent` (string or object)", nothing said of the cycle.
    expect(section(page(site, 'api-reference/tree'), 'Response 200')).toBe(
      [
        'ok',
        '',
        '- `name` (string)',
        '- `children` (array of object): Holds the structure it is part of (recursive).',
        '- `parent` (string or object): Holds the structure it is part of (recursive).',
      ].join('\n'),
    );
  });

  it('never follows external $ref: no server file read, no request made', async () => {
    const { port } = server.address() as AddressInfo;
    const spec = op({
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              local: { $ref: path.join(root, 'secret.json') },
              relative: { $ref: '../secret.json' },
              remote: { $ref: `http://127.0.0.1:${port}/schema.json` },
            },
          },
        },
      },
    });
    const dir = docs({ 'api.json': JSON.stringify(spec) }, { openapi: 'api.json', pages: ['GET /x'] });
    const site = await loadDocsFolder(dir);
    expect(site.pages.map((p) => p.path)).toEqual(['api-reference/x']);
    expect(JSON.stringify(site)).not.toContain(SECRET);
    expect(hits).toBe(0);
    // Each is reported, with where it is.
    const schema = '#/paths/~1x/get/responses/200/content/application~1json/schema/properties';
    const outside = site.warnings.filter((w) => w.message.includes('points outside this file'));
    expect(outside.map((w) => [w.file, w.message.split(' points')[0]]).sort()).toEqual(
      ['local', 'relative', 'remote'].map((name) => ['api.json', `$ref at ${schema}/${name}`]),
    );
  });

  it('refuses a spec that is a symlink out of the folder, naming only its place', async () => {
    const dir = docs({}, { openapi: 'api.json', pages: ['GET /x'] });
    writeFileSync(path.join(root, 'outside.json'), JSON.stringify(op({ description: SECRET })));
    symlinkSync(path.join(root, 'outside.json'), path.join(dir, 'api.json'));
    const site = await loadDocsFolder(dir);
    expect(site.pages).toEqual([]);
    expect(JSON.stringify(site)).not.toContain(SECRET);
    expect(site.warnings).toEqual([
      {
        file: 'api.json',
        message:
          'cannot read OpenAPI file (symbolic link leading outside the docs folder); its operations are not indexed',
      },
    ]);
  });

  it('turns a YAML alias bomb, invalid YAML, a non-OpenAPI file and $ref cycles into warnings', async () => {
    const bomb = ['openapi: 3.0.0', 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++)
      bomb.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    bomb.push('paths: {}');
    const cycle = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/x': { get: { summary: 'X', responses: { '200': { $ref: '#/components/responses/A' } } } },
      },
      components: {
        responses: { A: { $ref: '#/components/responses/B' }, B: { $ref: '#/components/responses/A' } },
      },
    };
    const dir = docs(
      {
        'bomb.yaml': bomb.join('\n'),
        'broken.yaml': 'openapi: 3.0.0\npaths: [unclosed\n',
        'other.json': JSON.stringify({ hello: 'world' }),
        'cycle.json': JSON.stringify(cycle),
      },
      {
        groups: [
          { group: 'a', openapi: 'bomb.yaml' },
          { group: 'b', openapi: 'broken.yaml' },
          { group: 'c', openapi: 'other.json' },
          { group: 'd', openapi: 'cycle.json' },
        ],
      },
    );
    const site = await loadDocsFolder(dir);
    const messages = site.warnings.map((w) => `${w.file}: ${w.message}`);
    expect(messages.find((m) => m.startsWith('bomb.yaml:'))).toMatch(
      /invalid YAML in OpenAPI file: .*alias/i,
    );
    expect(messages.find((m) => m.startsWith('broken.yaml:'))).toMatch(/invalid YAML in OpenAPI file/);
    expect(messages).toContain(
      'other.json: not an OpenAPI 3.x or Swagger 2.0 document (no "openapi" or "swagger" version)',
    );
    // A response that is a cycle of references has nothing to show; the page keeps method and path.
    expect(site.pages.map((p) => p.path)).toEqual(['api-reference/x']);
    expect(text(page(site, 'api-reference/x'))).toContain('`GET /x`');
  });

  it('bounds the fields one page lists (schemas fanning out through shared references)', async () => {
    // Ten properties each pointing at the next level, eight levels deep: 10^8 paths if written out.
    const schemas: Record<string, unknown> = { L8: { type: 'string' } };
    for (let level = 7; level >= 0; level--) {
      const properties: Record<string, unknown> = {};
      for (let i = 0; i < 10; i++) properties[`f${i}`] = { $ref: `#/components/schemas/L${level + 1}` };
      schemas[`L${level}`] = { type: 'object', properties };
    }
    const spec = {
      ...op({ content: { 'application/json': { schema: { $ref: '#/components/schemas/L0' } } } }),
      components: { schemas },
    };
    const dir = docs({ 'api.json': JSON.stringify(spec) }, { openapi: 'api.json', pages: ['GET /x'] });
    const site = await loadDocsFolder(dir);
    const fields = text(page(site, 'api-reference/x'))
      .split('\n')
      .filter((l) => l.startsWith('- `'));
    expect(fields).toHaveLength(MAX_OPERATION_FIELDS);
    expect(text(page(site, 'api-reference/x'))).toContain(
      `Fields past the first ${MAX_OPERATION_FIELDS} are not listed.`,
    );
  });
});
