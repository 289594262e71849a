// Errors of the OpenAI-compatible server in the OpenAI wire shape:
// `{"error": {"message", "type", "param", "code"}}` with a 4xx/5xx status. Thrown anywhere in the
// request path and turned into a response by http.ts. Tested by tests/unit/server/serve-openai.test.ts.

export type ApiErrorType = 'invalid_request_error' | 'authentication_error' | 'permission_error' | 'not_found_error' | 'rate_limit_error' | 'server_error';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: ApiErrorType = status >= 500 ? 'server_error' : 'invalid_request_error',
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }

  body(): { error: { message: string; type: ApiErrorType; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** A 400 naming the request field at fault. */
export function badParam(param: string, message: string, code = 'invalid_value'): ApiError {
  return new ApiError(400, `${param}: ${message}`, 'invalid_request_error', param, code);
}

/** Any thrown value as an ApiError (unknown errors become 500s with their message). */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  return new ApiError(500, `internal error: ${(e as Error)?.message ?? String(e)}`, 'server_error');
}
