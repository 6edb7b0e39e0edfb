// The pdf_structure detector: what a PDF's own structure says about its making and later changes (producer and
// creator tools, dates, the chain of incremental updates, XMP edit history, active content), read from raw bytes
// and pdf.js metadata, never by executing anything in the document.
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api.js';

/** Content a PDF viewer may run or open; reported, never executed. */
export type ActiveContent = 'javascript' | 'open_action' | 'launch' | 'embedded_files';

export interface PdfStructure {
  producer: string | null;
  creator: string | null;
  creationDate: string | null;
  modDate: string | null;
  /** Number of xref sections in the startxref -> /Prev chain (1 = written once). */
  revisions: number;
  linearized: boolean;
  eofMarkers: number;
  xmpHistory: string[];
  activeContent: ActiveContent[];
  aiProducer: string | null;
  /** Encrypted with an empty user password (permissions only): pdf.js decrypts it, raw bytes stay ciphertext. */
  encrypted: boolean;
}

// Whole words only, and no name that ordinary PDF software also carries: JasperReports, the report library behind a
// great many invoices and policy documents, wrote "JasperReports Library" into Producer and read as an AI service
// ("jasper"); a bare "Firefly" or "Gemini" inside another product's name did too.
const AI_PRODUCERS = /\b(chatgpt|openai|gpt-4o?|claude\.ai|anthropic|google gemini|gemini|copilot|midjourney|dall[-·. ]?e|adobe firefly|jasper\.ai|gamma\.app|tome\.app|beautiful\.ai)\b/i;

/** Offsets of the xref sections, newest first, following /Prev (and hybrid /XRefStm) with a loop guard. */
export function xrefChain(buf: Buffer): number[] {
  const tail = buf.subarray(Math.max(0, buf.length - 2048)).toString('latin1');
  const m = /startxref\s+(\d+)\s*%%EOF\s*$/.exec(tail) ?? /startxref\s+(\d+)(?![\s\S]*startxref)/.exec(tail);
  if (!m) return [];
  const chain: number[] = [];
  const seen = new Set<number>();
  let off = Number(m[1]);
  while (Number.isSafeInteger(off) && off > 0 && off < buf.length && !seen.has(off) && chain.length < 1000) {
    seen.add(off);
    chain.push(off);
    // The section's trailer (classic table) or the stream dictionary (xref stream) holds /Prev.
    const window = buf.toString('latin1', off, Math.min(buf.length, off + 65536));
    let dict: string;
    if (window.startsWith('xref')) {
      const t = window.indexOf('trailer');
      if (t < 0) break;
      dict = window.slice(t, t + 4096);
    } else {
      dict = window.slice(0, 4096);
    }
    const prev = /\/Prev\s+(\d+)/.exec(dict);
    if (!prev) break;
    off = Number(prev[1]);
  }
  return chain;
}

function parsePdfDate(s: string | undefined): string | null {
  if (!s) return null;
  const m = /D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Z+-])?(\d{2})?'?(\d{2})?/.exec(s);
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', se = '00', z, oh, om] = m;
  const tz = !z || z === 'Z' ? 'Z' : `${z}${oh ?? '00'}:${om ?? '00'}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${se}${tz}`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export async function readPdfStructure(buf: Buffer, doc: PDFDocumentProxy): Promise<PdfStructure> {
  const { info, metadata } = await doc.getMetadata();
  const i = info as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim().slice(0, 200) : null);
  const head = buf.toString('latin1', 0, Math.min(buf.length, 2048));
  const linearized = /\/Linearized\s/.test(head);
  const chain = xrefChain(buf);
  let eofMarkers = 0;
  for (let at = buf.indexOf('%%EOF'); at >= 0; at = buf.indexOf('%%EOF', at + 5)) eofMarkers++;
  // The xref chain is the record; %%EOF markers are only a fallback when it cannot be followed (damaged files).
  const revisions = Math.max(1, (chain.length || eofMarkers) - (linearized ? 1 : 0));

  let xmp: string | null = null;
  try {
    xmp = (metadata as { getRaw?: () => string } | null)?.getRaw?.() ?? null;
  } catch {
    xmp = null;
  }
  const xmpHistory: string[] = [];
  if (xmp) {
    const re = /stEvt:action(?:="|>)([^"<]+)[\s\S]{0,400}?stEvt:softwareAgent(?:="|>)([^"<]+)/g;
    for (let m = re.exec(xmp); m && xmpHistory.length < 20; m = re.exec(xmp)) xmpHistory.push(`${m[1]} by ${m[2]}`);
  }
  const creatorTool = xmp ? /xmp:CreatorTool(?:="|>)([^"<]+)/.exec(xmp)?.[1] ?? null : null;

  const activeContent: ActiveContent[] = [];
  const raw = buf.toString('latin1');
  if (/\/JavaScript\b|\/JS\s*[(<\d]/.test(raw)) activeContent.push('javascript');
  if (/\/OpenAction\b/.test(raw)) activeContent.push('open_action');
  if (/\/Launch\b/.test(raw)) activeContent.push('launch');
  if (/\/EmbeddedFile\b/.test(raw)) activeContent.push('embedded_files');
  try {
    const js = await doc.getJSActions();
    if (js && Object.keys(js).length && !activeContent.includes('javascript')) activeContent.push('javascript');
  } catch {
    // not available for this document
  }

  const producer = str(i.Producer);
  const creator = str(i.Creator) ?? str(creatorTool);
  const aiProducer = [producer, creator, creatorTool].find((s) => s && AI_PRODUCERS.test(s)) ?? null;
  return {
    producer,
    creator,
    creationDate: parsePdfDate(str(i.CreationDate) ?? undefined),
    modDate: parsePdfDate(str(i.ModDate) ?? undefined),
    revisions,
    linearized,
    eofMarkers,
    xmpHistory,
    activeContent,
    aiProducer,
    encrypted: Boolean(i.EncryptFilterName),
  };
}
