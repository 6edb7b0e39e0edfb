// The provenance detector on files that carry (or lack) each kind of evidence: generator PNG chunks, IPTC digital
// source type in XMP, C2PA stores in JPEG and PNG, EXIF software and camera fields, and metadata bombs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPngText, readProvenance } from '../../../src/analysis/provenance.js';
import { provenanceOutput } from '../../../src/analysis/detectors/provenance.js';
import { findingSentence } from '../../../src/analysis/copy.js';
import type { ProvenanceMetadata } from '../../../src/analysis/provenance.js';
import { parseTrustAnchors, type TrustAnchor } from '../../../src/analysis/trust-anchors.js';
import { issueSigner, makeAuthority, pkiDir, replaceOnce, signC2pa, signC2paEdit, signedStore, type TestSigner } from '../../support/c2pa-signing.js';
import { editorIn } from '../../../src/analysis/editing-software.js';
import {
  REPO,
  DATASETS,
  HAS_DATASETS,
  iTXt,
  jpegApp11,
  jpegSegment,
  jpegXmpSegment,
  makeJpeg,
  makePng,
  tEXt,
  withJpegSegments,
  withPngChunks,
  xmpPacket,
  zTXt,
} from './fixtures.js';

/** The provenance detector's output, with what fusion reads (codes, the deciding weight) and the copy people read. */
function provenanceOf(f: ProvenanceMetadata) {
  const out = provenanceOutput(f);
  return {
    dimension: out.dimension!,
    codes: out.findings.map((x) => x.code),
    strongAi: out.findings.some((x) => x.code.startsWith('provenance.ai.') && x.weight === 1),
    notes: out.findings.map((x) => findingSentence(x)),
  };
}

const A1111 =
  'a lighthouse at dusk, oil painting\nNegative prompt: blurry\nSteps: 30, Sampler: DPM++ 2M Karras, CFG scale: 7, Seed: 1234, Size: 512x512, Model: sd_xl_base_1.0';

describe('PNG generator chunks', () => {
  it('a Stable Diffusion WebUI "parameters" chunk names the generator: likely_ai, high', async () => {
    const png = withPngChunks(await makePng(64, 64), [tEXt('parameters', A1111)]);
    const f = await readProvenance(png, 'image/png');
    expect(f.pngGeneratorChunks).toEqual(['parameters']);
    expect(f.aiGenerator?.name).toBe('Stable Diffusion WebUI (A1111/Forge)');
    const out = provenanceOf(f);
    expect(out.strongAi).toBe(true);
    expect(out.dimension).toMatchObject({ key: 'provenance', assessment: 'likely_ai', confidence: 'high', score: 1 });
    expect(out.codes[0]).toBe('provenance.ai.png_chunk');
    expect(out.notes[0]).toMatch(/PNG "parameters" text chunk/);
  });

  it('ComfyUI prompt + workflow chunks (JSON graph) are recognised; a plain "prompt" word is not', async () => {
    const graph = JSON.stringify({ '3': { class_type: 'KSampler', inputs: { seed: 1 } } });
    const comfy = withPngChunks(await makePng(64, 64), [tEXt('prompt', graph), iTXt('workflow', '{"nodes":[]}')]);
    const f = await readProvenance(comfy, 'image/png');
    expect(f.pngGeneratorChunks.sort()).toEqual(['prompt', 'workflow']);
    expect(provenanceOf(f).strongAi).toBe(true);
    const plain = withPngChunks(await makePng(64, 64), [tEXt('prompt', 'say cheese')]);
    expect(provenanceOf(await readProvenance(plain, 'image/png')).strongAi).toBe(false);
  });

  it('a zTXt decompression bomb is bounded: its key is kept, its text is not inflated past 1 MiB', async () => {
    const bomb = zTXt('parameters', Buffer.alloc(64 * 1024 * 1024, 0x41)); // 64 MiB of 'A' -> ~64 KiB deflated
    const png = withPngChunks(await makePng(64, 64), [bomb]);
    const before = process.memoryUsage().rss;
    const text = readPngText(png);
    expect(text.get('parameters')).toBe('');
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024);
    expect((await readProvenance(png, 'image/png')).pngGeneratorChunks).toEqual(['parameters']);
  });
});

describe('XMP and EXIF', () => {
  it('a JPEG whose XMP declares IPTC DigitalSourceType trainedAlgorithmicMedia is likely_ai', async () => {
    const xmp = xmpPacket('Iptc4xmpExt:DigitalSourceType="http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia"');
    const jpeg = withJpegSegments(await makeJpeg(64, 64), [jpegXmpSegment(xmp)]);
    const f = await readProvenance(jpeg, 'image/jpeg');
    expect(f.digitalSourceType).toBe('trainedAlgorithmicMedia');
    const out = provenanceOf(f);
    expect(out.dimension.assessment).toBe('likely_ai');
    expect(out.codes[0]).toBe('provenance.ai.source_type');
    expect(out.notes.join(' ')).toMatch(/IPTC digital source type trainedAlgorithmicMedia/);
  });

  it('Google Imagen / Gemini PNGs: the bare, capitalised code "TrainedAlgorithmicMedia" in XMP counts as the URI does', async () => {
    // The iTXt XMP packet of an Imagen 4 Ultra API output, byte for byte (Sunwood-ai-labsII/gemini-actions-lab,
    // generated-images/release-v0.11.0-20251112_165119/, MIT); before the seventeenth session it was ignored.
    const google =
      '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?> <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 5.5.0"> ' +
      '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"> <rdf:Description rdf:about="" ' +
      'xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" Iptc4xmpExt:DigitalSourceFileType="TrainedAlgorithmicMedia" ' +
      'Iptc4xmpExt:DigitalSourceType="TrainedAlgorithmicMedia"/> </rdf:RDF> </x:xmpmeta>   <?xpacket end="w"?>';
    const f = await readProvenance(withPngChunks(await makePng(64, 64), [iTXt('XML:com.adobe.xmp', google)]), 'image/png');
    expect(f.digitalSourceType).toBe('trainedAlgorithmicMedia');
    const out = provenanceOf(f);
    expect(out.dimension.assessment).toBe('likely_ai');
    expect(out.codes[0]).toBe('provenance.ai.source_type');
    // the element form and a capitalised URI are read the same way
    for (const inner of [
      '><Iptc4xmpExt:DigitalSourceType>compositeWithTrainedAlgorithmicMedia</Iptc4xmpExt:DigitalSourceType></rdf:Description',
      'Iptc4xmpExt:DigitalSourceType="http://cv.iptc.org/newscodes/digitalsourcetype/TrainedAlgorithmicMedia"',
    ]) {
      const packet = inner.startsWith('>') ? xmpPacket('').replace('/></rdf:RDF>', `${inner}></rdf:RDF>`) : xmpPacket(inner);
      const g = await readProvenance(withJpegSegments(await makeJpeg(64, 64), [jpegXmpSegment(packet)]), 'image/jpeg');
      expect(provenanceOf(g).dimension.assessment).toBe('likely_ai');
    }
  });

  it('a capture source type declared in XMP, URI or bare code, earns nothing: it is text anyone can write', async () => {
    for (const value of ['DigitalCapture', 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture']) {
      const xmp = xmpPacket(`Iptc4xmpExt:DigitalSourceType="${value}"`);
      const f = await readProvenance(withJpegSegments(await makeJpeg(64, 64), [jpegXmpSegment(xmp)]), 'image/jpeg');
      expect(f.digitalSourceType).toBe('digitalCapture');
      const out = provenanceOf(f);
      expect(out.dimension.assessment).not.toBe('likely_authentic');
      expect(out.codes.filter((c) => c.startsWith('provenance.capture') || c.startsWith('provenance.ai'))).toEqual([]);
    }
  });

  it('compositeWithTrainedAlgorithmicMedia (generative fill) counts, for part of the content', async () => {
    const xmp = xmpPacket(
      'xmp:CreatorTool="Adobe Photoshop 25.0" Iptc4xmpExt:DigitalSourceType="http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia"',
    );
    const f = await readProvenance(withJpegSegments(await makeJpeg(64, 64), [jpegXmpSegment(xmp)]), 'image/jpeg');
    expect(f.editors).toContain('Adobe Photoshop');
    const out = provenanceOf(f);
    expect(out.dimension).toMatchObject({ assessment: 'likely_ai', score: 0.9 });
    expect(out.notes[0]).toMatch(/for part of the content/);
  });

  it('EXIF camera data is weak evidence of authenticity; EXIF Software of a generator is strong AI evidence', async () => {
    const camera = await makeJpeg(64, 64, (s) =>
      s.withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5', Software: 'Firmware 1.8.1' } }),
    );
    const f = await readProvenance(camera, 'image/jpeg');
    expect(f.camera).toMatchObject({ make: 'Canon', model: 'Canon EOS R5' });
    const out = provenanceOf(f);
    expect(out.dimension).toMatchObject({ assessment: 'likely_authentic', confidence: 'low' });
    expect(out.codes).toEqual(['provenance.camera', 'provenance.capture.camera_exif']);
    expect(out.notes.join(' ')).toMatch(/Camera data: Canon EOS R5\. Camera metadata can be copied or forged/);

    const gen = await makeJpeg(64, 64, (s) => s.withExif({ IFD0: { Software: 'Midjourney v6' } }));
    const g = await readProvenance(gen, 'image/jpeg');
    expect(g.aiGenerator?.name).toBe('Midjourney');
    expect(provenanceOf(g).strongAi).toBe(true);
  });

  it("a generator's name in free text (ImageDescription, Artist) counts only as the whole value or as what the picture was made with: a camera's own label or a caption is not a generator", async () => {
    const read = async (IFD0: Record<string, string>) => readProvenance(await makeJpeg(64, 64, (s) => s.withExif({ IFD0 })), 'image/jpeg');
    // a 2003 Trust camera's original (metadata-extractor-images) writes its chip's name: it read "Google generative AI"
    const trust = await read({ Make: 'Trust.gemini11hh', Model: 'Gemini11 H', ImageDescription: 'ICM107B  Trust.   Gemini11 H   ' });
    expect(trust.aiGenerator).toBeNull();
    expect(provenanceOf(trust).strongAi).toBe(false);
    for (const ImageDescription of ['The Gemini 4 capsule at the museum', 'Flux capacitor replica, Hill Valley', 'Portrait by Claude Monet']) {
      expect((await read({ Make: 'Canon', Model: 'Canon EOS R5', ImageDescription })).aiGenerator, ImageDescription).toBeNull();
    }
    expect((await read({ ImageDescription: 'Generated with DALL-E 3' })).aiGenerator?.name).toBe('DALL-E');
    expect((await read({ ImageDescription: 'Made with Google AI' })).aiGenerator?.name).toBe('Google generative AI');
    expect((await read({ Artist: 'Midjourney' })).aiGenerator?.name).toBe('Midjourney');
    expect((await read({ Artist: 'Stable Diffusion 3.5' })).aiGenerator?.name).toBe('Stable Diffusion');
    // a program field names the program: Gemini there is Google's generator, as before
    const sw = await read({ Software: 'Gemini' });
    expect(sw.aiGenerator?.name).toBe('Google generative AI');
    expect(provenanceOf(sw).strongAi).toBe(true);
  });

  it('names the same editors as the capture check (one list): Picasa and Windows Photos are editing, a canvas library is not Canva', async () => {
    for (const [software, editor] of [
      ['Picasa', 'Picasa'],
      ['Microsoft Windows Photo Viewer 6.1.7600.16385', 'Windows Photos'],
      ['Adobe Photoshop 25.0 (Windows)', 'Adobe Photoshop'],
      ['node-canvas 2.11', null],
      ['Adobe Firefly', null], // a generator, not an editor
    ] as const) {
      const f = await readProvenance(await makeJpeg(64, 64, (s) => s.withExif({ IFD0: { Software: software } })), 'image/jpeg');
      expect(f.editors).toEqual(editor ? [editor] : []);
      expect(editorIn([software])).toBe(editor);
      if (editor) expect(provenanceOf(f).notes).toContain(`Edited with: ${editor}.`);
    }
  });

  it('reads EXIF camera data from a HEIC Exif item (fixture made with heif-enc from a JPEG with Apple EXIF)', async () => {
    const heic = readFileSync(join(REPO, 'test', 'fixtures', 'analysis', 'camera-exif-128x96.heic'));
    const f = await readProvenance(heic, 'image/heic');
    expect(f.camera).toMatchObject({ make: 'Apple', model: 'iPhone 15 Pro' });
    expect(provenanceOf(f).notes.join(' ')).toMatch(/Camera data: Apple iPhone 15 Pro/);
  });

  it('no metadata at all is inconclusive, and the copy says absence is not evidence of authenticity', async () => {
    const out = provenanceOf(await readProvenance(await makePng(64, 64), 'image/png'));
    expect(out.dimension).toMatchObject({ assessment: 'inconclusive', score: 0.5 });
    expect(out.codes).toEqual(['provenance.none']);
    expect(out.notes.join(' ')).toMatch(/absence is not evidence of authenticity/);
  });
});

describe('C2PA / Content Credentials (signed by the tests: openssl PKI, the C2PA library signs)', () => {
  const pki = pkiDir();
  let signer: TestSigner;
  let anchors: TrustAnchor[];
  beforeAll(() => {
    const ca = makeAuthority(pki.dir, 'Provenance Test Root');
    signer = issueSigner(ca, 'Provenance Test Signer');
    anchors = parseTrustAnchors(ca.certPem);
  });
  afterAll(() => pki.cleanup());
  const dalle = { claimGenerator: 'OpenAI DALL-E 3', actions: [{ action: 'c2pa.created', digitalSourceType: 'trainedAlgorithmicMedia', softwareAgent: 'DALL-E' }] };
  const leica = { claimGenerator: 'Leica M11-P', actions: [{ action: 'c2pa.created', digitalSourceType: 'digitalCapture' }] };

  it('reads the claim generator, signer and actions of a manifest in JPEG APP11; a generative source type decides', async () => {
    const jpeg = await signC2pa(await makeJpeg(64, 64), signer, dalle);
    const f = await readProvenance(jpeg, 'image/jpeg');
    expect(f.c2pa).toMatchObject({ claimGenerator: 'OpenAI DALL-E 3', signer: 'Veracity tests / Provenance Test Signer', actions: dalle.actions, valid: true, trust: 'not_established' });
    const out = provenanceOf(f);
    expect(out.strongAi).toBe(true);
    expect(out.codes.slice(0, 2)).toEqual(['provenance.ai.c2pa_generator', 'provenance.c2pa.manifest']);
    expect(out.codes).toEqual(expect.arrayContaining(['claimSignature.validated', 'signingCredential.untrusted', 'assertion.dataHash.match']));
    expect(out.notes.join(' ')).toMatch(/manifest made by OpenAI DALL-E 3, signed by Veracity tests \/ Provenance Test Signer.*not established/);
  });

  it('a capture signed by a signer nobody vouches for (no anchors) is weak authentic evidence; trusted, it is strong', async () => {
    const png = await signC2pa(await makePng(64, 64), signer, leica);
    const weak = provenanceOf(await readProvenance(png, 'image/png'));
    expect(weak.dimension).toMatchObject({ assessment: 'likely_authentic', confidence: 'low', score: 0.3 });
    expect(weak.codes.at(-1)).toBe('provenance.capture.c2pa_signed');
    const strong = provenanceOf(await readProvenance(png, 'image/png', anchors));
    expect(strong.dimension).toMatchObject({ assessment: 'likely_authentic', confidence: 'high', score: 0.05 });
    expect(strong.codes).toContain('signingCredential.trusted');
    expect(strong.codes.at(-1)).toBe('provenance.capture.c2pa_trusted');
  });

  it('a trusted capture with edits recorded in the manifest is medium evidence and names the edits', async () => {
    const edited = { claimGenerator: 'Leica M11-P', actions: [...leica.actions, { action: 'c2pa.color_adjustments' }] };
    const out = provenanceOf(await readProvenance(await signC2pa(await makeJpeg(64, 64), signer, edited), 'image/jpeg', anchors));
    expect(out.dimension).toMatchObject({ assessment: 'likely_authentic', confidence: 'medium' });
    expect(out.codes).toEqual(expect.arrayContaining(['provenance.capture.c2pa_trusted_edited', 'provenance.c2pa.edited']));
    expect(out.notes.join(' ')).toMatch(/record edits after capture \(c2pa.color_adjustments\)/);
  });

  it('a source type in a C2PA action is read as the XMP one is: URI or bare code, any case (one canonicaliser)', async () => {
    for (const written of ['http://cv.iptc.org/newscodes/digitalsourcetype/TrainedAlgorithmicMedia', 'TRAINEDALGORITHMICMEDIA']) {
      const gen = { claimGenerator: 'Some Generator 1.0', actions: [{ action: 'c2pa.created', digitalSourceType: written }] };
      const f = await readProvenance(await signC2pa(await makeJpeg(64, 64), signer, gen), 'image/jpeg');
      expect(f.c2pa?.actions[0].digitalSourceType).toBe('trainedAlgorithmicMedia');
      const out = provenanceOf(f);
      expect(out.strongAi).toBe(true);
      expect(out.codes[0]).toBe('provenance.ai.c2pa_generator');
      expect(out.notes.join(' ')).toMatch(/declares trainedAlgorithmicMedia/);
    }
    // A capture spelt another way counts under a trusted signature as the canonical spelling does (the signer could
    // have written either); a code of no vocabulary this product knows is kept as written and counts as nothing.
    const capitalised = { claimGenerator: 'Leica M11-P', actions: [{ action: 'c2pa.created', digitalSourceType: 'DigitalCapture' }] };
    const trusted = provenanceOf(await readProvenance(await signC2pa(await makePng(64, 64), signer, capitalised), 'image/png', anchors));
    expect(trusted.codes.at(-1)).toBe('provenance.capture.c2pa_trusted');
    const other = { claimGenerator: 'Leica M11-P', actions: [{ action: 'c2pa.created', digitalSourceType: 'http://example.org/types/digitalCaptureish' }] };
    const f = await readProvenance(await signC2pa(await makePng(64, 64), signer, other), 'image/png', anchors);
    expect(f.c2pa?.actions[0].digitalSourceType).toBe('digitalCaptureish');
    expect(provenanceOf(f).codes.some((c) => c.startsWith('provenance.capture.'))).toBe(false);
  });

  it('bytes changed after signing: assertion.dataHash.mismatch weighs towards manipulation, no capture evidence counts', async () => {
    const photo = withJpegSegments(await makeJpeg(64, 64), [jpegSegment(0xfe, Buffer.from('original comment', 'latin1'))]);
    const edited = replaceOnce(await signC2pa(photo, signer, leica), 'original comment', 'altered  comment');
    const out = provenanceOf(await readProvenance(edited, 'image/jpeg', anchors));
    expect(out.dimension).toMatchObject({ assessment: 'inconclusive', score: 0.6 });
    expect(out.codes).toContain('assertion.dataHash.mismatch');
    expect(out.codes.some((c) => c.startsWith('provenance.capture.'))).toBe(false);
    expect(provenanceOutput(await readProvenance(edited, 'image/jpeg', anchors)).findings.find((x) => x.code === 'assertion.dataHash.mismatch')?.weight).toBe(0.6);
    expect(out.notes.join(' ')).toMatch(/edited after it was signed/);
  });

  // Issue 24: a failing ingredient. The capture below names an ingredient (its parent) whose own manifest fails.
  const capturedFrom = { claimGenerator: 'Leica M11-P', actions: [{ action: 'c2pa.created', digitalSourceType: 'digitalCapture' }] };

  it("a trusted capture whose ingredient's manifest fails (recorded when it was taken in) proves nothing: no capture evidence, and the ingredient is named", async () => {
    const broken = replaceOnce(await signC2pa(await makeJpeg(64, 64), signer, leica), 'Leica M11-P', 'Leica M11-X');
    const file = await signC2paEdit(await makeJpeg(72, 48), broken, 'L1000001.JPG', signer, capturedFrom, { recordedFailures: ['claimSignature.mismatch'] });
    const out = provenanceOf(await readProvenance(file, 'image/jpeg', anchors));
    expect(out.dimension).toMatchObject({ assessment: 'inconclusive', confidence: 'low', score: 0.5 });
    expect(out.codes.some((c) => c.startsWith('provenance.capture.'))).toBe(false);
    expect(out.codes.slice(0, 2)).toEqual(['provenance.c2pa.manifest', 'provenance.c2pa.ingredient_invalid']);
    expect(out.codes).toContain('signingCredential.trusted');
    expect(out.notes.join(' ')).toMatch(/ingredient “L1000001.JPG” has Content Credentials that do not validate \(claimSignature.mismatch\); the signer of this file recorded that/);
  });

  it("an ingredient's manifest changed after it was taken in: the failure weighs as tampering, worded as the ingredient's", async () => {
    const original = await signC2pa(await makeJpeg(64, 64), signer, leica);
    const file = replaceOnce(await signC2paEdit(await makeJpeg(72, 48), original, 'L1000002.JPG', signer, capturedFrom), 'digitalCapture', 'digitalCaptura');
    const f = await readProvenance(file, 'image/jpeg', anchors);
    const out = provenanceOf(f);
    expect(out.dimension).toMatchObject({ assessment: 'inconclusive', score: 0.6 });
    expect(out.codes.some((c) => c.startsWith('provenance.capture.'))).toBe(false);
    const status = provenanceOutput(f).findings.find((x) => x.code === 'assertion.hashedURI.mismatch');
    expect(status).toMatchObject({ weight: 0.6, facts: { ingredient: 'L1000002.JPG' } });
    expect(findingSentence(status!)).toMatch(/^In the Content Credentials of the ingredient “L1000002.JPG”: an assertion .* was changed after signing/);
    expect(out.codes).toContain('provenance.c2pa.ingredient_invalid');
  });

  it('a broken C2PA block is reported as unreadable (or fails validation), never thrown', async () => {
    const store = await signedStore(signer, dalle);
    const broken = Buffer.from(store);
    broken.fill(0xff, 40, 120);
    const f = await readProvenance(withJpegSegments(await makeJpeg(64, 64), [jpegApp11(broken)]), 'image/jpeg');
    expect(f.c2paUnreadable !== null || f.c2pa?.valid === false).toBe(true);
  });
});

describe.skipIf(!HAS_DATASETS)('on real files (../shared/datasets)', () => {
  it('reads camera EXIF from the exif_samples photos', async () => {
    const dir = join(DATASETS, 'train', 'real', 'exif_samples');
    const file = join(dir, 'jpg__Canon_PowerShot_S40.jpg_crop320x320.jpg');
    const f = await readProvenance(readFileSync(file), 'image/jpeg');
    expect(f.camera?.model).toBe('Canon PowerShot S40');
    expect(provenanceOf(f).dimension.assessment).toBe('likely_authentic');
  });
});
