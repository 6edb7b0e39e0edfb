// Which image of a PDF page a `pdf_image` region grid's `imageIndex` names (DECISIONS 34), declared once: the core
// (src/analysis/pdf-document.ts, which picks and scores the images) and the window (renderer/lib/pdf-thumbnail.ts,
// which lays the heatmap on the page) walk a page's pdf.js operator list with this, each with its own pdf.js. Pure:
// no pdf.js here, the caller passes its operator list and its OPS codes.

/** A PDF transformation matrix [a b c d e f] (PDF 32000-1 8.3.3). */
export type Matrix = [number, number, number, number, number, number];

/** m ∘ n: n applied first (pdf.js Util.transform). */
export function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[2] * n[1],
    m[1] * n[0] + m[3] * n[1],
    m[0] * n[2] + m[2] * n[3],
    m[1] * n[2] + m[3] * n[3],
    m[0] * n[4] + m[2] * n[5] + m[4],
    m[1] * n[4] + m[3] * n[5] + m[5],
  ];
}

/** The pdf.js operator codes the walk reads (`OPS` of pdfjs-dist). */
export interface PdfImageOps {
  save: number;
  restore: number;
  transform: number;
  paintFormXObjectBegin: number;
  paintFormXObjectEnd: number;
  paintImageXObject: number;
  paintInlineImageXObject: number;
  paintImageMaskXObject: number;
}

export interface ImagePaint {
  /** The image's `imageIndex`: every paint of an image, inline image or image mask counts, in painting order. */
  imageIndex: number;
  /** The current transformation matrix it is painted with (the unit square onto the page, in PDF points). */
  ctm: Matrix;
  /** The paint operator and its arguments (the XObject's name, or an inline image's data). */
  fn: number;
  args: unknown[];
  /** The operator's position in the list. */
  op: number;
}

/** Every image paint of one operator list, in painting order, with the matrix it is painted with. */
export function* imagePaints(ops: { fnArray: ArrayLike<number>; argsArray: ArrayLike<unknown> }, OPS: PdfImageOps): Generator<ImagePaint> {
  const stack: Matrix[] = [];
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  let imageIndex = 0;
  for (let op = 0; op < ops.fnArray.length; op++) {
    const fn = ops.fnArray[op];
    const args = (ops.argsArray[op] ?? []) as unknown[];
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.transform) ctm = multiply(ctm, args as Matrix);
    else if (fn === OPS.paintFormXObjectBegin) {
      stack.push(ctm);
      if (Array.isArray(args[0]) && args[0].length === 6) ctm = multiply(ctm, args[0] as Matrix);
    } else if (fn === OPS.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.paintImageXObject || fn === OPS.paintInlineImageXObject || fn === OPS.paintImageMaskXObject) {
      yield { imageIndex: imageIndex++, ctm, fn, args, op };
    }
  }
}
