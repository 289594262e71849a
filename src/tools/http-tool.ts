// User-defined HTTP tools: the model's arguments are POSTed as JSON, through the proxy, to a URL
// the proxy's config allowlists (`http_tools` in configs/search.example.yaml); the response text
// goes back to the model. The transport is the browser's ProxyClient or, in Node, the server code.
// Tested by tests/unit/server/proxy-server.test.ts and tests/unit/tools/tools-registry.test.ts.
import type { JsonSchema } from './json-schema';
import type { Tool } from './registry';

export interface HttpToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** Calls the named HTTP tool with JSON arguments; resolves with the response text or throws. */
export type HttpToolTransport = (name: string, args: Record<string, unknown>, signal?: AbortSignal) => Promise<string>;

export function httpTool(spec: HttpToolSpec, transport: HttpToolTransport): Tool {
  return {
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    async call(args, ctx) {
      return { text: await transport(spec.name, args, ctx.signal), ok: true };
    },
  };
}
