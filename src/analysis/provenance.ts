// The provenance detector: what the file's own metadata says about how it was made (C2PA manifests, IPTC digital
// source type, generator/editor software fields, generator text chunks in PNG, camera data). Metadata is easy to
// strip or forge: its presence can be strong evidence, its absence is never evidence of authenticity.
import { inflateSync } from 'node:zlib';
import exifr from 'exifr';
import type { MediaType } from './analysis-results.js';
import type { FactValue } from './finding.js';
import { heifItemData } from './image-headers.js';
import { UNBOUND } from './c2pa-codes.js';
import { readC2pa, type TrustAnchorSource } from './c2pa-reading.js';
import type { C2paValidation } from './c2pa-validation.js';
import { editorOf } from './editing-software.js';
import { AI_SOURCE_TYPES, PARTLY_AI_TYPES, sourceTypeCode } from './source-types.js';

/** Software names of AI image generators (matched case-insensitively in software, creator-tool and claim fields). */
const AI_GENERATORS: Array<[RegExp, string]> = [
  [/\bdall[-·. ]?e\b/i, 'DALL-E'],
  [/\bopenai\b|chatgpt|gpt-?4o|gpt-image/i, 'OpenAI'],
  [/midjourney/i, 'Midjourney'],
  [/adobe firefly|\bfirefly\b/i, 'Adobe Firefly'],
  [/stable[ -]?diffusion|\bsdxl\b|stability ai/i, 'Stable Diffusion'],
  [/comfyui/i, 'ComfyUI'],
  [/automatic1111|sd-webui|stable-diffusion-webui/i, 'Stable Diffusion WebUI'],
  [/invokeai/i, 'InvokeAI'],
  [/fooocus/i, 'Fooocus'],
  [/novelai/i, 'NovelAI'],
  [/\bimagen\b|\bgoogle ai\b|\bgemini\b|synthid|nano banana/i, 'Google generative AI'],
  [/bing image creator|microsoft designer|designer\.microsoft/i, 'Microsoft image creator'],
  [/leonardo\.ai|leonardo ai/i, 'Leonardo.Ai'],
  [/ideogram/i, 'Ideogram'],
  [/\bflux(\.1)?\b|black forest labs/i, 'FLUX'],
  [/playground ?ai|playgroundai/i, 'Playground'],
  [/runwayml|runway gen/i, 'Runway'],
  [/\bkrea\b/i, 'Krea'],
  [/\bgrok\b/i, 'xAI Grok'],
  [/dreamstudio/i, 'DreamStudio'],
];

/**
 * Fields people and cameras write free text into (EXIF ImageDescription and Artist, a PNG Comment, XMP's credit
 * line): a caption ("the Gemini capsule"), a photographer's name, a camera's own label (a 2003 Trust camera writes
 * "Gemini11 H" into ImageDescription). A generator's name there counts only as the whole value ("Midjourney") or in
 * a phrase that says the picture was made with it ("Generated with DALL-E 3", "Made with Google AI").
 */
const FREE_TEXT_FIELDS = new Set(['Artist', 'ImageDescription']);
function generatorInFreeText(value: string): string | null {
  const name = matchName(AI_GENERATORS, value);
  if (!name) return null;
  const whole = AI_GENERATORS.some(([re]) => {
    const m = re.exec(value);
    return m !== null && value.replace(m[0], '').replace(/[\s\d.:,;()[\]-]+/g, '') === '';
  });
  const made = /\b(generated|created|made|produced|rendered|edited|imagined|drawn)\s+(with|by|using|in|on|via)\b/i.test(value) || /\bai[- ]generated\b/i.test(value);
  return whole || made ? name : null;
}

/** PNG text keywords written by generators, and who writes them. */
const PNG_GENERATOR_KEYS: Record<string, string> = {
  parameters: 'Stable Diffusion WebUI (A1111/Forge) generation parameters',
  prompt: 'ComfyUI prompt graph',
  workflow: 'ComfyUI workflow',
  'sd-metadata': 'InvokeAI metadata',
  invokeai_metadata: 'InvokeAI metadata',
  invokeai_graph: 'InvokeAI graph',
  dream: 'InvokeAI (dream) prompt',
  fooocus_scheme: 'Fooocus metadata',
  generation_data: 'generator parameters',
  aigc: 'AIGC label (generated-content marking)',
};

/** Where the metadata names a generator: the finding code that says so, and the facts its copy quotes. */
export interface AiSource {
  /** The generator's name as the product says it ("Midjourney", "a generative model"). */
  name: string;
  code:
    | 'provenance.ai.c2pa_generator'
    | 'provenance.ai.c2pa_ingredient'
    | 'provenance.ai.png_chunk'
    | 'provenance.ai.png_text'
    | 'provenance.ai.xmp_aigc'
    | 'provenance.ai.exif_field'
    | 'provenance.ai.exif_sd_parameters'
    | 'provenance.ai.software'
    | 'provenance.ai.source_type';
  facts: Record<string, FactValue>;
}

/** What the file's metadata says, as data; detectors/provenance.ts turns it into findings. */
export interface ProvenanceMetadata {
  /** The active C2PA manifest, validated (c2pa-validation.ts). */
  c2pa: C2paValidation | null;
  /** Why a C2PA manifest store that is present could not be read; null when there is none or it was read. */
  c2paUnreadable: string | null;
  digitalSourceType: string | null;
  aiGenerator: AiSource | null;
  editors: string[];
  software: string[];
  camera: { make?: string; model?: string; lens?: string } | null;
  captureDate: string | null;
  pngGeneratorChunks: string[];
}

const MAX_TEXT = 1024 * 1024; // inflated size of one PNG text chunk at most (zTXt bombs)

export function readPngText(buf: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let off = 8;
  let total = 0;
  while (off + 12 <= buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    if (off + 12 + len > buf.length || type === 'IEND') break;
    const data = buf.subarray(off + 8, off + 8 + len);
    off += 12 + len;
    if (type !== 'tEXt' && type !== 'zTXt' && type !== 'iTXt') continue;
    if (++total > 256) break;
    const nul = data.indexOf(0);
    if (nul < 1) continue;
    const key = data.toString('latin1', 0, nul);
    try {
      let text: string;
      if (type === 'tEXt') text = data.toString('latin1', nul + 1);
      else if (type === 'zTXt') text = inflateSync(data.subarray(nul + 2), { maxOutputLength: MAX_TEXT }).toString('latin1');
      else {
        const compressed = data[nul + 1] === 1;
        let p = nul + 3;
        const langEnd = data.indexOf(0, p);
        const transEnd = data.indexOf(0, langEnd + 1);
        if (langEnd < 0 || transEnd < 0) continue;
        p = transEnd + 1;
        const body = data.subarray(p);
        text = (compressed ? inflateSync(body, { maxOutputLength: MAX_TEXT }) : body).toString('utf8');
      }
      if (!out.has(key)) out.set(key, text.slice(0, MAX_TEXT));
    } catch {
      out.set(key, ''); // an oversized or broken compressed chunk: its key is still evidence
    }
  }
  return out;
}

/** The first XMP packet in the bytes (JPEG APP1, HEIF item, PNG iTXt handled by the caller). */
export function findXmp(buf: Buffer): string | null {
  const start = buf.indexOf('<x:xmpmeta');
  if (start < 0) return null;
  const end = buf.indexOf('</x:xmpmeta>', start);
  return buf.toString('utf8', start, end < 0 ? Math.min(buf.length, start + MAX_TEXT) : end + 12);
}

function xmpField(xmp: string, name: string): string | null {
  const attr = new RegExp(`${name}\\s*=\\s*"([^"]*)"`).exec(xmp);
  if (attr) return attr[1];
  const el = new RegExp(`<${name}>\\s*(?:<rdf:Alt>\\s*<rdf:li[^>]*>)?([^<]+)<`).exec(xmp);
  return el ? el[1].trim() : null;
}

/**
 * The IPTC digital source type an XMP packet declares, as its code (`sourceTypeCode`: the URI or the bare code, any
 * case). Only an AI source type ever counts from XMP: a capture type there is forgeable text and earns nothing.
 */
function xmpSourceType(xmp: string): string | null {
  const raw = /digitalsourcetype\/(\w+)/i.exec(xmp)?.[1] ?? xmpField(xmp, 'Iptc4xmpExt:DigitalSourceType')?.trim();
  if (!raw || !/^\w+$/.test(raw)) return null;
  return sourceTypeCode(raw) ?? null;
}

const matchName = (list: Array<[RegExp, string]>, text: string): string | null => {
  for (const [re, name] of list) if (re.test(text)) return name;
  return null;
};

/**
 * The first manifest behind the active one (its ingredients' manifests, breadth first as the chain lists them) whose
 * actions declare a generative digital source type, taken in as a parent or a component (an `inputTo` ingredient,
 * such as a reference picture given to a generator, does not make the file what it was): who made it, as the
 * product names generators, and what the copy quotes.
 */
export function aiIngredientOf(active: C2paValidation): AiSource | null {
  const links = active.chain.flatMap((c) => c.ingredients);
  for (const m of active.chain.slice(1)) {
    const created = m.actions.find((a) => a.digitalSourceType && AI_SOURCE_TYPES.has(a.digitalSourceType));
    if (!created) continue;
    const link = links.find((i) => i.manifest === m.label);
    if (!link || (link.relationship !== 'parentOf' && link.relationship !== 'componentOf')) continue;
    const agent = created.softwareAgent ?? null;
    const name = matchName(AI_GENERATORS, [agent, m.claimGenerator].filter(Boolean).join(' ')) ?? agent ?? m.claimGenerator ?? 'a generative model';
    return {
      name,
      code: 'provenance.ai.c2pa_ingredient',
      facts: {
        sourceType: created.digitalSourceType!,
        ingredient: link.title,
        relationship: link.relationship,
        softwareAgent: agent,
        partly: link.relationship === 'componentOf' || PARTLY_AI_TYPES.has(created.digitalSourceType!),
      },
    };
  }
  return null;
}

export async function readProvenance(buf: Buffer, mediaType: MediaType, anchors: TrustAnchorSource = []): Promise<ProvenanceMetadata> {
  const f: ProvenanceMetadata = {
    c2pa: null,
    c2paUnreadable: null,
    digitalSourceType: null,
    aiGenerator: null,
    editors: [],
    software: [],
    camera: null,
    captureDate: null,
    pngGeneratorChunks: [],
  };
  const setAi = (name: string, code: AiSource['code'], facts: AiSource['facts'] = {}) => {
    f.aiGenerator ??= { name, code, facts };
  };

  // C2PA / Content Credentials, validated by the C2PA library; the signer judged against the trust anchors
  const c2pa = await readC2pa(buf, mediaType, anchors);
  if (c2pa?.kind === 'manifest') f.c2pa = c2pa.manifest;
  else if (c2pa?.kind === 'unreadable') f.c2paUnreadable = c2pa.reason;
  // A manifest whose hard binding fails (or that has none) describes other bytes: it may have been copied from
  // another file, so what it declares is not this file's declaration (its statuses still say what broke).
  const active = f.c2pa && !f.c2pa.statuses.some((s) => s.manifest === undefined && !s.success && UNBOUND.has(s.code)) ? f.c2pa : null;
  if (active) {
    const created = active.actions.find((a) => a.digitalSourceType);
    if (created?.digitalSourceType) f.digitalSourceType = created.digitalSourceType;
    const gen = [active.claimGenerator, ...active.actions.map((a) => a.softwareAgent)].filter((s): s is string => Boolean(s));
    for (const g of gen) {
      const ai = matchName(AI_GENERATORS, g);
      if (ai && f.digitalSourceType && AI_SOURCE_TYPES.has(f.digitalSourceType)) setAi(ai, 'provenance.ai.c2pa_generator', { sourceType: f.digitalSourceType });
      const ed = editorOf(g);
      if (ed && !f.editors.includes(ed)) f.editors.push(ed);
    }
    // A generative source type declared in the manifest is the manifest's own declaration, whoever made the claim.
    if (f.digitalSourceType && AI_SOURCE_TYPES.has(f.digitalSourceType)) {
      setAi(active.claimGenerator ?? 'a generative model', 'provenance.ai.c2pa_generator', { sourceType: f.digitalSourceType });
    }
    // An earlier manifest of the chain that declares a generative source type for what this file was made from.
    // ChatGPT's downloads read so: the active manifest records c2pa.opened of a parent whose own manifest records
    // c2pa.created, trainedAlgorithmicMedia, by GPT-4o. A parent made by a generator makes the file AI-made; a
    // component, partly so.
    if (!f.aiGenerator) {
      const found = aiIngredientOf(active);
      if (found) setAi(found.name, found.code, found.facts);
    }
  }

  let dstInXmp = false;

  // PNG generator chunks
  let pngXmp: string | null = null;
  if (mediaType === 'image/png') {
    const text = readPngText(buf);
    for (const [key, value] of text) {
      const who = PNG_GENERATOR_KEYS[key.toLowerCase()];
      if (who && (key.toLowerCase() !== 'prompt' || /class_type|"inputs"/.test(value) || text.has('workflow'))) {
        f.pngGeneratorChunks.push(key);
        setAi(who.replace(/ (generation parameters|prompt graph|workflow|metadata|graph|prompt)$/, ''), 'provenance.ai.png_chunk', { chunk: key, writer: who });
      }
      if (key === 'XML:com.adobe.xmp') pngXmp = value;
      if (/^(software|source|comment)$/i.test(key) && value) {
        if (/^software$/i.test(key)) f.software.push(value.slice(0, 200));
        const ai = /^comment$/i.test(key) ? generatorInFreeText(value) : matchName(AI_GENERATORS, value);
        if (ai) setAi(ai, 'provenance.ai.png_text', { chunk: key, value: value.slice(0, 80) });
      }
    }
  }

  // XMP: IPTC DigitalSourceType, CreatorTool, history
  const xmp = pngXmp ?? findXmp(buf);
  if (xmp) {
    const dst = xmpSourceType(xmp);
    if (dst && !f.digitalSourceType) {
      f.digitalSourceType = dst;
      dstInXmp = true;
    }
    for (const field of ['xmp:CreatorTool', 'tiff:Software', 'stEvt:softwareAgent']) {
      const v = xmpField(xmp, field);
      if (!v) continue;
      f.software.push(v.slice(0, 200));
    }
    // Credit is a credit line ("Photo: Gemini Studios"); Google's edits write "Made with Google AI" there.
    const credit = xmpField(xmp, 'photoshop:Credit');
    const creditAi = credit && generatorInFreeText(credit);
    if (creditAi) setAi(creditAi, 'provenance.ai.software', { value: credit.slice(0, 80) });
    const aigc = /\bAIGC\b/.test(xmp) ? 'AIGC label' : null;
    if (aigc) setAi('a generative AI service', 'provenance.ai.xmp_aigc');
  }

  // EXIF / TIFF via exifr (JPEG, PNG eXIf; for HEIF the TIFF block is found first: exifr misreads some HEIF Exif items)
  try {
    const source = mediaType === 'image/heic' || mediaType === 'image/heif' ? heifTiff(buf) : buf;
    const exif = !source
      ? undefined
      : ((await exifr.parse(source, {
      tiff: true,
      ifd0: {},
      exif: true,
      gps: false,
      interop: false,
      ifd1: false,
      xmp: false,
      iptc: false,
      icc: false,
      makerNote: false,
      userComment: true,
      translateValues: true,
      reviveValues: true,
    } as never)) as Record<string, unknown> | undefined);
    if (exif) {
      const str = (k: string) => (typeof exif[k] === 'string' ? (exif[k] as string).trim() : undefined);
      const make = str('Make');
      const model = str('Model');
      const lens = str('LensModel') ?? str('LensMake');
      if (make || model) f.camera = { make, model, lens };
      for (const k of ['Software', 'ProcessingSoftware', 'HostComputer', 'Artist', 'ImageDescription']) {
        const v = str(k);
        if (v && k === 'Software') f.software.push(v.slice(0, 200));
        if (v) {
          const ai = FREE_TEXT_FIELDS.has(k) ? generatorInFreeText(v) : matchName(AI_GENERATORS, v);
          if (ai) setAi(ai, 'provenance.ai.exif_field', { field: k, value: v.slice(0, 80) });
        }
      }
      const uc = exif['UserComment'];
      const ucText = typeof uc === 'string' ? uc : uc instanceof Uint8Array ? Buffer.from(uc).toString('latin1') : '';
      // A1111 writes its parameters into the JPEG's EXIF UserComment.
      if (/Steps: \d+, Sampler: /.test(ucText)) setAi('Stable Diffusion WebUI', 'provenance.ai.exif_sd_parameters');
      const date = exif['DateTimeOriginal'];
      if (date instanceof Date && !Number.isNaN(date.getTime())) f.captureDate = date.toISOString();
    }
  } catch {
    // unreadable EXIF is simply absent evidence
  }

  for (const s of f.software) {
    const ai = matchName(AI_GENERATORS, s);
    if (ai) setAi(ai, 'provenance.ai.software', { value: s.slice(0, 80) });
    const ed = editorOf(s);
    if (ed && !f.editors.includes(ed)) f.editors.push(ed);
  }
  if (f.digitalSourceType && AI_SOURCE_TYPES.has(f.digitalSourceType) && !f.aiGenerator) {
    setAi(dstInXmp ? 'a generative model' : (active?.claimGenerator ?? 'a generative model'), 'provenance.ai.source_type', { sourceType: f.digitalSourceType, declaredIn: dstInXmp ? 'xmp' : 'c2pa' });
  }
  f.software = [...new Set(f.software)];
  return f;
}

/** The TIFF block of a HEIF file's Exif item: a 4-byte offset to the TIFF header, then the data (ISO/IEC 23008-12 A.2.1). */
function heifTiff(buf: Buffer): Buffer | null {
  const item = heifItemData(buf, 'Exif');
  if (!item || item.length < 8) return null;
  const start = 4 + item.readUInt32BE(0);
  return start < item.length ? item.subarray(start) : null;
}
