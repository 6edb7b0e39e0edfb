// Files dropped on the Assess screen's drop zone as a browser drops them (a DataTransfer in dragover and drop
// events), for the specs that test the drop itself rather than the file pickers.
import type { Page } from '@playwright/test';

export interface DroppedFile {
  name: string;
  mimeType: string;
  data: Buffer;
}

/** Drops `files` on the drop zone at once, in this order. */
export async function dropFiles(page: Page, files: DroppedFile[]): Promise<void> {
  const encoded = files.map((f) => ({ name: f.name, mimeType: f.mimeType, base64: f.data.toString('base64') }));
  const dataTransfer = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.mimeType }));
    return dt;
  }, encoded);
  await page.getByTestId('drop-zone').dispatchEvent('dragover', { dataTransfer });
  await page.getByTestId('drop-zone').dispatchEvent('drop', { dataTransfer });
}
