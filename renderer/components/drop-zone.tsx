// Where files enter: drag and drop of files and whole folders, plus "Choose files" and "Choose folder" buttons for
// the keyboard and for people who do not drag.
import { useRef, useState } from 'react';
import { collectFromEntries, collectFromFileList, type CollectedFile, type EntryLike } from '../lib/collect-files.js';

interface Props {
  caseName: string | null;
  onFiles: (files: CollectedFile[]) => void;
  /** One line, once the case has files: the verdicts come first (issue 22). */
  compact?: boolean;
}

export function DropZone({ caseName, onFiles, compact = false }: Props): React.JSX.Element {
  const [over, setOver] = useState(false);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  const onDrop = async (event: React.DragEvent<HTMLDivElement>): Promise<void> => {
    event.preventDefault();
    setOver(false);
    const items = [...event.dataTransfer.items];
    const entries = items.map((item) => item.webkitGetAsEntry?.() ?? null).filter((e): e is FileSystemEntry => e !== null);
    if (entries.length > 0) onFiles(await collectFromEntries(entries as unknown as EntryLike[], caseName));
    else onFiles(collectFromFileList(event.dataTransfer.files, caseName));
  };

  const onPicked = (input: HTMLInputElement | null): void => {
    if (!input?.files) return;
    onFiles(collectFromFileList(input.files, caseName));
    input.value = '';
  };

  return (
    <div
      className={`drop-zone${over ? ' over' : ''}${compact ? ' compact' : ''}`}
      data-testid="drop-zone"
      onDragOver={(e) => {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => void onDrop(e)}
    >
      <p className="drop-title">{compact ? 'Drop more files or folders here' : 'Drop images, PDFs or whole folders here'}</p>
      {!compact && <p className="hint">JPEG, PNG and HEIC images up to 25 MB, PDFs up to 2 MB. A folder becomes a case named after it.</p>}
      <div className="pickers">
        <button type="button" className="primary" onClick={() => filesInput.current?.click()}>
          Choose files…
        </button>
        <button type="button" onClick={() => folderInput.current?.click()}>
          Choose a folder…
        </button>
      </div>
      <input ref={filesInput} type="file" multiple hidden data-testid="file-input" accept="image/jpeg,image/png,image/heic,image/heif,application/pdf,.heic,.heif" onChange={(e) => onPicked(e.currentTarget)} />
      <input
        ref={folderInput}
        type="file"
        hidden
        data-testid="folder-input"
        {...{ webkitdirectory: '', directory: '' }}
        onChange={(e) => onPicked(e.currentTarget)}
      />
    </div>
  );
}
