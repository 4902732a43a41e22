import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ApiError } from '../core/errors.js';
import { REPO_ROOT } from '../core/paths.js';
import { DOCS_ASSETS, buildOpenApiDocument, guidePages } from './openapi.js';
import { RawResponse, type Route } from './route.js';

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));

const CONTENT_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.html': 'text/html; charset=utf-8',
};

function contentTypeOf(file: string): string {
  return CONTENT_TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream';
}

/** Files are read once, on first use, and kept: they change only with a deploy. */
const fileCache = new Map<string, Buffer>();
function cachedFile(path: string): Buffer {
  let body = fileCache.get(path);
  if (!body) {
    body = readFileSync(path);
    fileCache.set(path, body);
  }
  return body;
}

/** GET /openapi.json: the document, built once (per served model id) from the routing table it describes. */
export function makeOpenApiRoute(routes: () => readonly Route<any, any>[]): Route<null, RawResponse> {
  let document: Buffer | null = null;
  let builtFor: string | null | undefined;
  return {
    endpoint: 'openapi',
    method: 'get',
    path: '/openapi.json',
    authenticated: false,
    needsModels: false,
    parse: () => null,
    async handle(_req, ctx) {
      const model = ctx.services.modelId;
      if (!document || builtFor !== model) {
        document = Buffer.from(JSON.stringify(model ? buildOpenApiDocument(routes(), model) : buildOpenApiDocument(routes())));
        builtFor = model;
      }
      return new RawResponse('application/json', document, { 'Cache-Control': 'no-cache' });
    },
  };
}

/** GET /docs: the interactive reference (Swagger UI over /openapi.json). */
export const docsPageRoute: Route<null, RawResponse> = {
  endpoint: 'docs',
  method: 'get',
  path: '/docs',
  authenticated: false,
  needsModels: false,
  parse: () => null,
  async handle() {
    return new RawResponse('text/html; charset=utf-8', cachedFile(join(REPO_ROOT, 'web', 'docs.html')), { 'Cache-Control': 'no-cache' });
  },
};

/** GET /docs/assets/{file}: Swagger UI's files from node_modules, and our start-up script. */
export const docsAssetRoute: Route<string, RawResponse> = {
  endpoint: 'docs',
  method: 'get',
  path: '/docs/assets/{file}',
  authenticated: false,
  needsModels: false,
  parse(_body, params) {
    const file = params?.file ?? '';
    if (!(DOCS_ASSETS as readonly string[]).includes(file)) throw new ApiError('not_found', `no docs asset ${file}; there are ${DOCS_ASSETS.join(', ')}`);
    return file;
  },
  async handle(file) {
    const path = file === 'docs.js' ? join(REPO_ROOT, 'web', 'docs.js') : join(SWAGGER_UI_DIR, file);
    return new RawResponse(contentTypeOf(file), cachedFile(path), { 'Cache-Control': 'public, max-age=3600' });
  },
};

/** GET /docs/guide/{page}: the behaviour pages of docs/, as Markdown text (linked from each operation). */
export const docsGuideRoute: Route<string, RawResponse> = {
  endpoint: 'docs',
  method: 'get',
  path: '/docs/guide/{page}',
  authenticated: false,
  needsModels: false,
  parse(_body, params) {
    const page = params?.page ?? '';
    if (!guidePages().includes(page)) throw new ApiError('not_found', `no docs page ${page}; there are ${guidePages().join(', ')}`);
    return page;
  },
  async handle(page) {
    // text/plain: browsers show it in the tab rather than downloading a text/markdown file.
    return new RawResponse('text/plain; charset=utf-8', cachedFile(join(REPO_ROOT, 'docs', page)), { 'Cache-Control': 'no-cache' });
  },
};
