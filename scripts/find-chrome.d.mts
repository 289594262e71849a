// Types for scripts/find-chrome.mjs (used by playwright.config.ts).
export function findChrome(): string | null;
export const chromeFlags: string[];
