// `veracity assess FILE... [--json] [--models-dir DIR]`: the same sniff -> probe -> analyse pipeline as the server,
// in-process and without it, for a specialist's terminal or a script (JSON output has the v1 FileResult shape).
import { randomUUID } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileResult, JobResultError } from '../api/schemas.js';
import { formatLimit, MAX_FILE_BYTES } from '../api/limits.js';
import { SNIFF_BYTES, sniff } from '../api/media-kinds.js';
import { AnalysisError } from './analysis-results.js';
import { analyseFile, closeAnalysis, probeFile } from './index.js';

/** models/ at the repository root (src/analysis/ -> ../../models). */
export const DEFAULT_MODELS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'models');
/** One file's analysis at most, in-process (the server's workers have their own limit). */
const FILE_TIMEOUT_MS = 120_000;

/** A v1 FileResult, except that a refused file of no accepted kind has file.type application/octet-stream. */
export type CliFileResult = Omit<FileResult, 'file'> & { file: Omit<FileResult['file'], 'type'> & { type: string } };

const USAGE = 'usage: veracity assess FILE... [--json] [--models-dir DIR] [--threads N] [--trust-anchors PEM]';

interface Out {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/** Returns the process exit code: 0 every file analysed, 1 some file refused or failed, 2 usage error. */
export async function assessCommand(argv: string[], out: Out = defaultOut): Promise<number> {
  const files: string[] = [];
  let json = false;
  let modelsDir = process.env.VERACITY_MODELS_DIR || DEFAULT_MODELS_DIR;
  let threads = 1;
  let trustAnchorsFile = process.env.VERACITY_TRUST_ANCHORS || null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') json = true;
    else if (a === '--models-dir' && argv[i + 1]) modelsDir = resolve(argv[++i]);
    else if (a.startsWith('--models-dir=')) modelsDir = resolve(a.slice('--models-dir='.length));
    else if (a === '--trust-anchors' && argv[i + 1]) trustAnchorsFile = resolve(argv[++i]);
    else if (a === '--threads' && argv[i + 1]) threads = Math.max(1, Number.parseInt(argv[++i], 10) || 1);
    else if (a === '-h' || a === '--help') {
      out.stdout(USAGE + '\n');
      return 0;
    } else if (a.startsWith('--')) {
      out.stderr(`unknown option ${a}\n${USAGE}\n`);
      return 2;
    } else files.push(a);
  }
  if (files.length === 0) {
    out.stderr(USAGE + '\n');
    return 2;
  }
  const results: CliFileResult[] = [];
  try {
    for (const f of files) results.push(await assessOne(resolve(f), modelsDir, threads, trustAnchorsFile));
  } finally {
    await closeAnalysis();
  }
  out.stdout(json ? JSON.stringify(results, null, 2) + '\n' : table(results));
  return results.every((r) => r.status === 'completed') ? 0 : 1;
}

const defaultOut: Out = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) };

async function assessOne(path: string, modelsDir: string, threads: number, trustAnchorsFile: string | null): Promise<CliFileResult> {
  const startedAt = new Date().toISOString();
  let size = 0;
  const base = { id: randomUUID(), name: basename(path) };
  const fail = (type: string | null, error: JobResultError): CliFileResult => ({
    // The server refuses such files before a job exists; the CLI reports them in the same shape, and a file of
    // no accepted kind has the generic type application/octet-stream.
    file: { ...base, size, type: type ?? 'application/octet-stream' },
    status: 'error',
    startedAt,
    completedAt: new Date().toISOString(),
    error,
  });
  let head: Buffer;
  try {
    size = (await stat(path)).size;
    const fh = await open(path, 'r');
    try {
      head = Buffer.alloc(Math.min(SNIFF_BYTES, size));
      await fh.read(head, 0, head.length, 0);
    } finally {
      await fh.close();
    }
  } catch (err) {
    return fail(null, { code: 'invalid_request', message: `cannot read ${path}: ${(err as Error).message}` });
  }
  const sniffed = sniff(head);
  if (!sniffed) return fail(null, { code: 'unsupported_format', message: 'not a JPEG, PNG, HEIC/HEIF or PDF file' });
  if (size > MAX_FILE_BYTES[sniffed.kind]) {
    return fail(sniffed.mediaType, { code: 'file_too_large', message: `over the ${formatLimit(MAX_FILE_BYTES[sniffed.kind])} limit for ${sniffed.kind}` });
  }
  const signal = AbortSignal.timeout(FILE_TIMEOUT_MS);
  try {
    const probe = await probeFile(path, sniffed, { signal });
    if (!probe.ok) return fail(sniffed.mediaType, { code: probe.code, message: probe.message });
    const analysis = await analyseFile(path, sniffed.mediaType, { modelsDir, signal, threads, trustAnchorsFile });
    return {
      file: { ...base, size, type: sniffed.mediaType },
      status: 'completed',
      startedAt,
      completedAt: new Date().toISOString(),
      verdict: analysis.verdict,
      dimensions: analysis.verdict.dimensions,
      ...(analysis.pixelSize ? { pixelSize: analysis.pixelSize } : {}),
    };
  } catch (err) {
    const code = err instanceof AnalysisError ? err.code : 'internal_error';
    return fail(sniffed.mediaType, { code, message: (err as Error).message });
  }
}

function table(results: CliFileResult[]): string {
  const rows = results.map((r) => {
    const dim = (k: string) => r.dimensions?.find((d) => d.key === k);
    const ai = dim('ai_detection');
    const other = dim('provenance') ?? dim('pdf_structure');
    return [
      r.file.name,
      r.file.type,
      r.status === 'completed' ? (r.verdict?.assessment ?? '') : `${r.error?.code}`,
      r.verdict?.confidence ?? '',
      ai ? ai.score.toFixed(2) : '-',
      other ? `${other.key}=${other.assessment ?? ''}` : '-',
    ];
  });
  const header = ['FILE', 'TYPE', 'VERDICT', 'CONFIDENCE', 'AI SCORE', 'METADATA'];
  const widths = header.map((h, i) => Math.min(48, Math.max(h.length, ...rows.map((r) => r[i].length))));
  const line = (cells: string[]) => cells.map((c, i) => c.slice(0, widths[i]).padEnd(widths[i])).join('  ').trimEnd();
  const details = results
    .map((r) => `- ${r.file.name}: ${r.status === 'completed' ? (r.verdict?.display.description ?? '') : (r.error?.message ?? '')}`)
    .join('\n');
  return [line(header), ...rows.map(line), '', details, ''].join('\n');
}
