// The WebGPU entry point in a browser page or a Web Worker: `navigator.gpu`, or a plain
// explanation of how to enable it. Used by the UI and the workers; tested by the e2e suite.
import { WebGpuUnavailableError } from './errors';

export const ENABLE_WEBGPU_HELP = [
  'Use Chrome or Edge 113 or newer (desktop); Firefox 141+ on Windows and Safari 26+ also ship WebGPU.',
  'Open chrome://gpu and check that "WebGPU" says "Hardware accelerated".',
  'On Linux, start Chrome with --enable-unsafe-webgpu --enable-features=Vulkan and make sure a Vulkan driver is installed (mesa-vulkan-drivers or your GPU vendor\'s driver).',
  'Serve the studio from http://localhost or https:// (WebGPU needs a secure context).',
];

/** Returns `navigator.gpu` or throws WebGpuUnavailableError with the steps to enable it. */
export function getBrowserGpu(): GPU {
  const nav = (globalThis as { navigator?: Navigator }).navigator;
  if (!(globalThis as { isSecureContext?: boolean }).isSecureContext) {
    throw new WebGpuUnavailableError('WebGPU needs a secure context (http://localhost or https://).', ENABLE_WEBGPU_HELP);
  }
  if (!nav || !('gpu' in nav) || !nav.gpu) {
    throw new WebGpuUnavailableError('This browser does not expose WebGPU (navigator.gpu is missing).', ENABLE_WEBGPU_HELP);
  }
  return nav.gpu;
}
