import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { buildOpenApiDocument } from '../../src/routes/openapi.js';
import { ROUTES } from '../../src/routes/index.js';

/** JSON Pointer escaping of one reference token (RFC 6901). */
const token = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

interface Operation {
  pointer: string;
  responses: Record<string, { headers?: Record<string, { $ref?: string; required?: boolean }>; content?: Record<string, unknown> }>;
}

/**
 * Checks real responses against the OpenAPI document the server serves (built here from the same routes; a test
 * checks the served copy is identical): the status is one the operation documents, the body validates against that
 * status's schema (JSON Schema 2020-12, with ajv), the content type is the documented one and required headers are
 * present. Paths or methods the document lacks must be answered 404/405 with the error body.
 */
export class OpenApiConformance {
  readonly document = buildOpenApiDocument(ROUTES);
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly patterns: { path: string; regex: RegExp }[];

  constructor() {
    this.ajv.addSchema(this.document, 'openapi.json');
    this.patterns = Object.keys(this.document.paths).map((path) => ({
      path,
      regex: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`),
    }));
  }

  private validator(pointer: string): ValidateFunction {
    let v = this.validators.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: `openapi.json#${pointer}` });
      this.validators.set(pointer, v);
    }
    return v;
  }

  /** The documented operation for a request, or null when the document has none. */
  operation(method: string, path: string): Operation | null {
    const bare = path.split('?')[0]!.replace(/\/+$/, '') || '/';
    const found = this.patterns.find((p) => p.regex.test(bare));
    const op = found && this.document.paths[found.path][method.toLowerCase()];
    return op ? { pointer: `/paths/${token(found.path)}/${method.toLowerCase()}`, responses: op.responses } : null;
  }

  /** Problems with one response, in words; empty when it conforms. */
  check(method: string, path: string, status: number, headers: Headers, body: unknown): string[] {
    const where = `${method} ${path} → ${status}`;
    const problems: string[] = [];
    if (!headers.get('x-request-id')) problems.push(`${where}: no X-Request-Id header`);
    const op = this.operation(method, path);
    if (!op) {
      if (status !== 404 && status !== 405) problems.push(`${where}: the document has no such operation, yet the server answered ${status}`);
      const schema = path.startsWith('/v1/') ? '/components/schemas/OpenAIErrorBody' : '/components/schemas/ErrorBody';
      const v = this.validator(schema);
      if (!v(body)) problems.push(`${where}: body is not an error body: ${this.ajv.errorsText(v.errors)}`);
      return problems;
    }
    const response = op.responses[String(status)];
    if (!response) return [...problems, `${where}: status ${status} is not documented for this operation (documented: ${Object.keys(op.responses).join(', ')})`];
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const resolved = header.$ref ? this.document.components.headers[header.$ref.split('/').pop()!] : header;
      if (resolved?.required && !headers.has(name)) problems.push(`${where}: required header ${name} is missing`);
    }
    const contentTypes = Object.keys(response.content ?? {});
    const actual = (headers.get('content-type') ?? '').split(';')[0]!.trim();
    const documented = contentTypes.find((c) => c === '*/*' || c.split(';')[0]!.trim() === actual);
    if (!documented) return [...problems, `${where}: content type ${actual} is not documented (${contentTypes.join(', ')})`];
    if (documented === 'application/json' && contentTypes.length && (response.content![documented] as { schema?: unknown }).schema) {
      const pointer = `${op.pointer}/responses/${status}/content/${token(documented)}/schema`;
      const v = this.validator(pointer);
      if (!v(body)) problems.push(`${where}: body does not match the documented schema: ${this.ajv.errorsText(v.errors, { separator: '; ' })}`);
    }
    return problems;
  }

  /** Validates a request body against an operation's request schema (for the documented examples). */
  checkRequest(method: string, path: string, body: unknown): string[] {
    const op = this.operation(method, path);
    if (!op) return [`${method} ${path}: no such operation`];
    const v = this.validator(`${op.pointer}/requestBody/content/application~1json/schema`);
    return v(body) ? [] : [`${method} ${path}: request does not match its schema: ${this.ajv.errorsText(v.errors)}`];
  }
}

let shared: OpenApiConformance | null = null;
export function conformance(): OpenApiConformance {
  shared ??= new OpenApiConformance();
  return shared;
}
