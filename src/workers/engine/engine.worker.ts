// Entry of the engine Web Worker: one Engine (engine.ts) answering the page's requests
// (protocol.ts). The page talks to it through EngineClient (client.ts). The test build alone
// exposes `self.__engineTest.loseDevice()` (a device loss mid-run, tests/e2e/studio-run-failure.spec.ts).
// Exercised by tests/e2e/run-worker.spec.ts.
import { Engine } from './engine';
import type { EngineReply, EngineRequest } from './protocol';

const scope = self as unknown as { postMessage(msg: EngineReply, transfer: Transferable[]): void; onmessage: ((e: MessageEvent<EngineRequest>) => void) | null };
const engine = new Engine((msg, transfer = []) => scope.postMessage(msg, transfer));
scope.onmessage = (e) => void engine.handle(e.data);
if (import.meta.env.MODE === 'test') Object.assign(self, { __engineTest: { loseDevice: () => engine.loseDeviceForTest() } });
