import { describe, expect, it } from 'vitest';
import { MAX_FEEDBACK_COMMENT_CHARS } from '../../assistant/feedback.ts';
import { buildOpenApiDocument } from '../openapi.ts';
import { widgetApiOperations } from './assistant-feedback-openapi.ts';

describe('the feedback operation in the OpenAPI document', () => {
  it("states the comment's limit, checked after trimming", () => {
    const document = buildOpenApiDocument(widgetApiOperations, { version: 'test' }) as {
      paths: Record<
        string,
        Record<string, { requestBody: { content: Record<string, { schema: { properties: object } }> } }>
      >;
    };
    const properties =
      document.paths['/v2/assistant/{domain}/feedback']?.post?.requestBody.content['application/json']?.schema
        .properties;
    expect(properties).toMatchObject({ comment: { maxLength: MAX_FEEDBACK_COMMENT_CHARS } });
  });
});
