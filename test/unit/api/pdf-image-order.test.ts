// The one walk that numbers a PDF page's images (src/api/pdf-image-order.ts): the core scores images by this
// `imageIndex` and the window places each heatmap by it, so both must count the same paints with the same matrices.
import { OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { imagePaints, multiply, type Matrix } from '../../../src/api/pdf-image-order.js';

describe('imagePaints', () => {
  it('counts every image, inline image and mask paint in painting order, with the matrix in force', () => {
    const scale: Matrix = [200, 0, 0, 100, 50, 60];
    const form: Matrix = [1, 0, 0, 1, 300, 400];
    const ops: [number, unknown[]][] = [
      [OPS.save, []],
      [OPS.transform, scale],
      [OPS.paintImageXObject, ['img_p0_1', 640, 320]],
      [OPS.restore, []],
      [OPS.paintInlineImageXObject, [{ width: 8, height: 8 }]],
      [OPS.paintFormXObjectBegin, [form, [0, 0, 10, 10]]],
      [OPS.transform, [2, 0, 0, 2, 0, 0]],
      [OPS.paintImageMaskXObject, [{ width: 8, height: 8 }]],
      [OPS.paintFormXObjectEnd, []],
      [OPS.paintImageXObject, ['img_p0_1', 640, 320]], // the same XObject painted again counts again
      [OPS.restore, []], // an unbalanced restore keeps the matrix
      [OPS.paintImageXObject, ['img_p0_2', 64, 64]],
    ];
    const paints = [...imagePaints({ fnArray: ops.map(([fn]) => fn), argsArray: ops.map(([, a]) => a) }, OPS)];
    const identity: Matrix = [1, 0, 0, 1, 0, 0];
    expect(paints.map((p) => [p.imageIndex, p.op, p.ctm])).toEqual([
      [0, 2, scale],
      [1, 4, identity],
      [2, 7, multiply(form, [2, 0, 0, 2, 0, 0])],
      [3, 9, identity],
      [4, 11, identity],
    ]);
    expect(paints[2].ctm).toEqual([2, 0, 0, 2, 300, 400]);
    expect(paints.map((p) => p.fn)).toEqual([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageMaskXObject, OPS.paintImageXObject, OPS.paintImageXObject]);
  });

  it('multiplies as pdf.js does: the right-hand matrix applies first', () => {
    // Scale by 2 then translate by (10, 0): a point (1, 1) lands at (12, 2).
    const m = multiply([1, 0, 0, 1, 10, 0], [2, 0, 0, 2, 0, 0]);
    expect([m[0] * 1 + m[2] * 1 + m[4], m[1] * 1 + m[3] * 1 + m[5]]).toEqual([12, 2]);
  });
});
