// FFHQ framing: StyleGAN's face generators (thispersondoesnotexist and its copies, StyleGAN2 / 2-ADA / 3 on FFHQ)
// draw every face where FFHQ's alignment put the faces they learnt from: a square picture, the face centred across it,
// a little below the middle, at about two thirds of its side. The pixel detector rarely catches these faces (MODEL_CARD
// "GAN faces": 1 of 160 held out called AI by 1.5.0), so the framing itself is said. It is not proof: real faces
// cropped by face-dataset software (FFHQ's own, AFLW's) are framed the same way, and cropping defeats it; so it never
// accuses, it only keeps camera metadata from clearing the picture (fusion rule 3).
//
// Where the shipped face finder (face-finder.ts, its manifest parameters) puts the largest face on the training role's
// faces (Data 2.3: 898 StyleGAN faces of FakeFaces, 567 of FFHQ's real faces; test/eval/face-framing.ts): centre at
// x 0.498 / 0.500 (sd 0.007 / 0.010), y 0.542 / 0.546 (sd 0.008 / 0.015), side 0.651 / 0.646 of the picture (sd 0.030 /
// 0.052). The bounds are about three standard deviations either way. Measured on sources never used to set them
// (test/eval/results/face-framing.json): 225 of 231 held-out StyleGAN2 faces framed (the finder finds no face in 5
// of the other 6); real photos 6 of 1,556 (of 241 with a face found), every one a face-dataset crop (AFLW2000,
// CelebA-style crops, a sketch); camera and phone originals 0 of 450.
import type { FaceReading } from './face-finder.js';

/** The finding that says a picture is so framed (weight 0: it accuses nothing; fusion rule 3 reads it). */
export const FRAMING_FINDING = 'pixels.ffhq_framing';

export const FFHQ_FRAMING = {
  /** The picture is square: width and height differ by at most this share of the longer side. */
  squareTolerance: 0.01,
  centreX: 0.5,
  centreY: 0.545,
  /** How far the largest face's centre may lie from (centreX, centreY), as a share of the width / the height. */
  toleranceX: 0.03,
  toleranceY: 0.035,
  /** The largest face's side over the picture's side. */
  minSide: 0.55,
  maxSide: 0.75,
} as const;

/** Whether a picture of width x height is square enough to be framed as FFHQ's faces are (whatever its faces). */
export function squareForFraming(width: number, height: number): boolean {
  return width > 0 && height > 0 && Math.abs(width - height) <= FFHQ_FRAMING.squareTolerance * Math.max(width, height);
}

/** Whether a picture of width x height whose face finder read `faces` is framed as StyleGAN's FFHQ faces are. */
export function ffhqFramed(width: number, height: number, faces: FaceReading | null): boolean {
  const f = FFHQ_FRAMING;
  // FFHQ's faces are aligned upright: a face only a turned look found (face-finder.ts `search`) is not framed so
  if (!faces?.centre || faces.angle || !squareForFraming(width, height)) return false;
  const [x, y] = faces.centre;
  return (
    Math.abs(x - f.centreX) <= f.toleranceX &&
    Math.abs(y - f.centreY) <= f.toleranceY &&
    faces.largest >= f.minSide &&
    faces.largest <= f.maxSide
  );
}
