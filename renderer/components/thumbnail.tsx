// A file's thumbnail from its stored original (fetched with the API key as a blob, shown through a blob: URL);
// a PDF shows its first page drawn by pdf.js; a HEIC, which Chromium cannot draw, shows the preview the core decoded
// itself (GET .../preview). A file that cannot be shown gets an icon with its kind.
import { useEffect, useRef, useState } from 'react';
import type { FileResult } from '../../src/api/schemas.js';
import type { ApiClient } from '../lib/api-client.js';
import { renderPdfThumbnail } from '../lib/pdf-thumbnail.js';

interface Props {
  client: ApiClient;
  apiKey: string;
  jobId: string;
  file: FileResult['file'];
}

const DRAWABLE = new Set(['image/jpeg', 'image/png']);
/** Originals Chromium cannot draw: the core's own preview of them is shown instead. */
export const PREVIEWED = new Set(['image/heic', 'image/heif']);

export function Thumbnail({ client, apiKey, jobId, file }: Props): React.JSX.Element {
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const isPdf = file.type === 'application/pdf';
  const previewed = PREVIEWED.has(file.type);
  const drawable = DRAWABLE.has(file.type) || isPdf || previewed;
  const placeholder = useRef<HTMLDivElement>(null);
  const [visible, setVisible] = useState(false);

  // Originals can be 25 MB each: fetch one only when its card scrolls into view.
  useEffect(() => {
    const element = placeholder.current;
    if (!drawable || visible || !element) return;
    if (typeof IntersectionObserver === 'undefined') {
      setVisible(true);
      return;
    }
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setVisible(true);
    }, { rootMargin: '400px' });
    observer.observe(element);
    return () => observer.disconnect();
  }, [drawable, visible]);

  useEffect(() => {
    if (!drawable || !visible) return;
    let live = true;
    let created: string | null = null;
    // The preview comes with its own type (image/png or image/jpeg) from the core.
    (previewed ? client.getPreview(apiKey, jobId, file.id) : client.getContent(apiKey, jobId, file.id))
      .then((blob) => {
        if (!live) return;
        if (previewed) return blob;
        // The core sends the original as an attachment; the type is set here from the detected media type.
        return isPdf ? blob.arrayBuffer().then((bytes) => renderPdfThumbnail(bytes)) : new Blob([blob], { type: file.type });
      })
      .then((image) => {
        if (!live || !image) return;
        created = URL.createObjectURL(image);
        setUrl(created);
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
      if (created) URL.revokeObjectURL(created);
    };
  }, [client, apiKey, jobId, file.id, file.type, drawable, isPdf, previewed, visible]);

  if (drawable && url) {
    const alt = isPdf ? `First page of ${file.name}` : previewed ? `Thumbnail of ${file.name} (decoded by Veracity)` : `Thumbnail of ${file.name}`;
    return <img className={`thumb${isPdf ? ' thumb-page' : ''}`} src={url} alt={alt} data-testid="thumbnail" data-preview={previewed ? 'core' : undefined} />;
  }
  const label = file.type === 'application/pdf' ? 'PDF' : file.type === 'image/heic' || file.type === 'image/heif' ? 'HEIC' : 'FILE';
  return (
    <div ref={placeholder} className="thumb thumb-icon" role="img" aria-label={`${label} file ${failed ? '(preview unavailable)' : ''}`.trim()}>
      <svg viewBox="0 0 48 60" width="48" height="60" aria-hidden="true" focusable="false">
        <path d="M4 2h28l12 12v44H4z" fill="none" stroke="currentColor" strokeWidth="3" />
        <path d="M32 2v12h12" fill="none" stroke="currentColor" strokeWidth="3" />
      </svg>
      <span>{drawable && !failed ? '…' : label}</span>
    </div>
  );
}
