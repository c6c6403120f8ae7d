/**
 * Short forms readers type for words docs spell out: "env var" for "environment variable", "repo" for
 * "repository". A query term that is such a short form also matches its long form's terms, in the search
 * (site-search ranking and `coverage`) and in the built-in answerer, so "which env var sets the model"
 * finds and quotes "the `DOCENT_MODEL` environment variable". The list is fixed and English: these short
 * forms are the jargon of software docs whatever language a reader writes in, and only forms that name
 * one thing are listed (not "app", "doc" or "spec", which docs use as words of their own), whose long
 * form's stem names only that thing: not "prod" (its stem `product`), "deps" (`depend`), "impl"
 * (`implement`), "info" (`inform`), nor "authorization" for "auth" (`author`).
 */
import { getStemmer } from './stemmer.ts';

/** Each short form, as readers write it, and the words it stands for. */
const SHORT_FORMS: Readonly<Record<string, string>> = {
  env: 'environment',
  envs: 'environments',
  var: 'variable',
  vars: 'variables',
  repo: 'repository',
  repos: 'repositories',
  config: 'configuration',
  configs: 'configurations',
  cfg: 'configuration',
  param: 'parameter',
  params: 'parameters',
  arg: 'argument',
  args: 'arguments',
  dir: 'directory',
  dirs: 'directories',
  db: 'database',
  postgres: 'postgresql',
  pg: 'postgresql',
  dbs: 'databases',
  auth: 'authentication',
  creds: 'credentials',
  cert: 'certificate',
  certs: 'certificates',
  k8s: 'kubernetes',
  ram: 'memory',
  mem: 'memory',
  msg: 'message',
  msgs: 'messages',
  pkg: 'package',
  pkgs: 'packages',
  perms: 'permissions',
  js: 'javascript',
  ts: 'typescript',
  py: 'python',
  gh: 'github',
};

/** Each stemmer's table (short form, as written and as stemmed → long-form terms), built on first use. */
const byStemmer = new Map<string, ReadonlyMap<string, readonly string[]>>();

/**
 * The long form's terms of a query term that is a short form (`env` → `environ` under the English
 * stemmer), stemmed as the term was; empty for any other term. A short form is matched as written and
 * as the stemmer leaves it (`vars` → `var`).
 */
export function longFormTerms(term: string, stemmer: string | null): readonly string[] {
  const key = stemmer ?? '';
  let table = byStemmer.get(key);
  if (table === undefined) {
    const stem = stemmer === null ? (word: string) => word : getStemmer(stemmer);
    const built = new Map<string, string[]>();
    for (const [short, long] of Object.entries(SHORT_FORMS)) {
      const terms = long.split(' ').map(stem);
      for (const form of new Set([short, stem(short)])) {
        const known = built.get(form) ?? [];
        for (const t of terms) if (!known.includes(t) && t !== form) known.push(t);
        built.set(form, known);
      }
    }
    table = built;
    byStemmer.set(key, table);
  }
  return table.get(term) ?? [];
}
