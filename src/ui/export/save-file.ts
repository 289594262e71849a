// Saves bytes the studio made (an export zip) as a download: a Blob URL on a temporary <a download>.
// Used by the Export panel; exercised by tests/e2e/studio-export.spec.ts (Playwright's download event).

export function saveFile(fileName: string, bytes: Uint8Array, type = 'application/zip'): void {
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
