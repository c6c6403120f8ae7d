/**
 * How Mintlify names one OpenAPI operation in navigation entries and in `openapi:` front matter:
 * `GET /users`, `/specs/users.yaml POST /users/{id}`, `openapi.json webhook orderUpdated`.
 */
export interface OperationRef {
  /** The spec file as written (relative to the docs root, may start with `/`); null: the inherited one. */
  spec: string | null;
  /** Lower case: `get`, `post`, …, or `webhook` for an OpenAPI 3.1 webhook name. */
  method: string;
  /** The path template (`/users/{id}`) or, for a webhook, its name. */
  path: string;
}

export const OPERATION_METHODS = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
] as const;

const isMethod = (token: string): boolean =>
  token === 'webhook' || (OPERATION_METHODS as readonly string[]).includes(token);

/** Null when `entry` is not an operation reference (a page path, a URL). */
export const parseOperationRef = (entry: string): OperationRef | null => {
  const trimmed = entry.trim();
  // One word, a page path, is no operation: most entries of a large navigation, spared the split.
  if (!/\s/.test(trimmed)) return null;
  const tokens = trimmed.split(/\s+/);
  if (tokens.length === 2) {
    const [method = '', path = ''] = tokens;
    if (!isMethod(method.toLowerCase())) return null;
    return { spec: null, method: method.toLowerCase(), path: endpointPath(path) };
  }
  if (tokens.length === 3) {
    const [spec = '', method = '', path = ''] = tokens;
    if (!isMethod(method.toLowerCase())) return null;
    return { spec, method: method.toLowerCase(), path: endpointPath(path) };
  }
  return null;
};

/** `https://api.example.com/v1/users` names the path `/v1/users`, as Mintlify reads it. */
const endpointPath = (endpoint: string): string => {
  if (!/^https?:\/\//i.test(endpoint)) return endpoint;
  try {
    return decodeURI(new URL(endpoint).pathname);
  } catch {
    return endpoint;
  }
};

/**
 * The docs-folder-relative path of a spec named in a config or front matter, or null with the reason.
 * A URL counts only when its path names a file of the folder (`https://docs.example.com/openapi.json`
 * served from the repository): Docent never fetches remote specs during ingestion.
 */
export const specFileOf = (
  written: string,
  exists: (rel: string) => boolean,
): { file: string } | { file: null; reason: string } => {
  let candidate = written.trim().replace(/\\/g, '/');
  if (/^[a-z][a-z0-9+.-]*:/i.test(candidate)) {
    if (!/^https?:/i.test(candidate)) return { file: null, reason: 'is not a file of the docs folder' };
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(candidate).pathname);
    } catch {
      return { file: null, reason: 'is not a valid URL' };
    }
    const local = normalizeRelative(pathname);
    if (local !== null && exists(local)) return { file: local };
    return { file: null, reason: 'is a remote URL; remote specs are not fetched during ingestion' };
  }
  candidate = candidate.replace(/[?#].*$/, '');
  const local = normalizeRelative(candidate);
  if (local === null) return { file: null, reason: 'points outside the docs folder' };
  return { file: local };
};

const normalizeRelative = (written: string): string | null => {
  const parts: string[] = [];
  for (const part of written.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return null;
      parts.pop();
      continue;
    }
    parts.push(part);
  }
  return parts.length === 0 ? null : parts.join('/');
};
