// Types for scripts/find-chrome.mjs (used by playwright.config.ts).
export function findChrome(): string | null;
export const SWIFTSHADER_FAST_COMPILE: string;
export const chromeFlags: string[];
