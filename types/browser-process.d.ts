// What bundled code may know of Node: only that a `process` global MAY exist, for feature
// detection (src/ort/env.ts picks the wasm backend under Node). Listed in tsconfig.browser.json
// alone, so Node APIs stay unknown to the bundle's type check; tsconfig.json has @types/node.
declare const process: { versions?: { node?: string } } | undefined;
