// JavaScript-side hygiene for the Python workers: a cap on the wasm heap (growth past it fails,
// so Python raises MemoryError) and removal of network/script-loading globals after Pyodide has
// loaded. Defence in depth: in the browser the worker's CSP is the real boundary.

let capped = false;

/** Make WebAssembly memory growth past `maxBytes` fail; emscripten turns that into ENOMEM. */
export function capWasmMemory(maxBytes: number): void {
  if (capped) return;
  capped = true;
  const proto = WebAssembly.Memory.prototype;
  const grow = proto.grow;
  proto.grow = function (this: WebAssembly.Memory, pages: number): number {
    if (this.buffer.byteLength + pages * 65536 > maxBytes) {
      throw new RangeError(`sandbox memory cap of ${maxBytes} bytes reached`);
    }
    return grow.call(this, pages);
  };
}

/** Globals that reach the network or load code, removed from the worker scope. */
export const NETWORK_GLOBALS = [
  'fetch', 'XMLHttpRequest', 'WebSocket', 'WebSocketStream', 'EventSource', 'WebTransport',
  'importScripts', 'Worker', 'SharedWorker', 'RTCPeerConnection', 'BroadcastChannel',
  'indexedDB', 'caches', 'Request', 'Response',
] as const;

export function scrubGlobals(scope: object): void {
  const g = scope as Record<string, unknown>;
  for (const name of NETWORK_GLOBALS) {
    try {
      Object.defineProperty(g, name, { value: undefined, configurable: false, writable: false });
    } catch {
      try {
        delete g[name];
      } catch {
        /* non-configurable: leave it, the CSP still blocks it */
      }
    }
  }
  const nav = (g.navigator ?? undefined) as { sendBeacon?: unknown } | undefined;
  if (nav && 'sendBeacon' in nav) {
    try {
      Object.defineProperty(nav, 'sendBeacon', { value: undefined });
    } catch {
      /* ignore */
    }
  }
}
