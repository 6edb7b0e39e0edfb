// Gathers the files of a drop or a picker selection: whole folders are walked (webkitGetAsEntry), and a folder's name
// becomes the case of every file inside it; loose files take the case typed by the specialist.

/** The parts of the File and Directory Entries API that the walk uses (a structural subset, so tests can build trees). */
export interface EntryLike {
  isFile: boolean;
  isDirectory: boolean;
  name: string;
  fullPath: string;
}
export interface FileEntryLike extends EntryLike {
  file: (success: (file: File) => void, failure?: (error: unknown) => void) => void;
}
export interface DirectoryEntryLike extends EntryLike {
  createReader: () => { readEntries: (success: (entries: EntryLike[]) => void, failure?: (error: unknown) => void) => void };
}

export interface CollectedFile {
  file: File;
  /** Path inside the dropped folder, e.g. `case-12/scans/a.jpg`, or the file name for loose files. */
  path: string;
  caseName: string | null;
}

/** Hidden and system files are skipped silently: they are never part of a case (.DS_Store, Thumbs.db, desktop.ini). */
export function isSystemFile(name: string): boolean {
  return name.startsWith('.') || /^(thumbs\.db|desktop\.ini)$/i.test(name);
}

function readAll(directory: DirectoryEntryLike): Promise<EntryLike[]> {
  const reader = directory.createReader();
  const all: EntryLike[] = [];
  // readEntries answers in batches (100 in Chromium) and signals the end with an empty batch.
  return new Promise((resolve, reject) => {
    const next = (): void =>
      reader.readEntries((batch) => {
        if (batch.length === 0) resolve(all);
        else {
          all.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

function fileOf(entry: FileEntryLike): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

const MAX_DEPTH = 16;

/** Walks the dropped entries; a top-level folder names the case of everything under it. */
export async function collectFromEntries(entries: EntryLike[], looseCase: string | null): Promise<CollectedFile[]> {
  const out: CollectedFile[] = [];
  const walk = async (entry: EntryLike, caseName: string | null, prefix: string, depth: number): Promise<void> => {
    if (isSystemFile(entry.name) || depth > MAX_DEPTH) return;
    if (entry.isFile) {
      out.push({ file: await fileOf(entry as FileEntryLike), path: prefix + entry.name, caseName });
    } else if (entry.isDirectory) {
      const children = await readAll(entry as DirectoryEntryLike);
      children.sort((a, b) => a.name.localeCompare(b.name));
      for (const child of children) await walk(child, caseName, `${prefix}${entry.name}/`, depth + 1);
    }
  };
  for (const entry of entries) {
    await walk(entry, entry.isDirectory ? entry.name : looseCase, '', 0);
  }
  return out;
}

/** Files from `<input type=file>`: with `webkitdirectory`, each file's relative path starts with the folder's name. */
export function collectFromFileList(files: ArrayLike<File>, looseCase: string | null): CollectedFile[] {
  const out: CollectedFile[] = [];
  for (let i = 0; i < files.length; i++) {
    const file = files[i];
    const relative = file.webkitRelativePath ?? '';
    const segments = relative.split('/').filter(Boolean);
    if (segments.some(isSystemFile) || isSystemFile(file.name)) continue;
    out.push({ file, path: relative || file.name, caseName: segments.length > 1 ? segments[0] : looseCase });
  }
  // Browsers list a picked folder in no particular order; cards follow the names, as in a file manager.
  return out.sort((a, b) => a.path.localeCompare(b.path, undefined, { numeric: true }));
}
