// What a capture finding against the claimed capture says happened to the file, in two kinds, so that the product
// never calls a re-save "manipulation" (issue 22). Read by the capture report (its status), by fusion (the note it
// adds) and through the dimension's label by the card and the case report. A light module: fusion imports it.

/**
 * Findings (weight > 0) that show a program saved the file again after the camera did, and nothing more: an editor
 * named in the metadata, the compression settings of common software, a size no camera takes or the recorded size
 * scaled down, the maker's own section or the thumbnail dropped or rewritten, the pixels turned after the thumbnail was made, a conversion to PNG or an encoder's
 * HEIC. Web photos, resized uploads and files opened and saved by any editor show these, so they say "re-saved",
 * never "manipulated". They still take the camera data's weight away: the file is no longer what the camera wrote.
 */
export const RESAVE_SIGNS: ReadonlySet<string> = new Set([
  'capture.software.edited',
  'capture.xmp.edit_history',
  'capture.qtable.standard_ijg',
  'capture.jpeg.software_layout',
  'capture.jpeg.layout_unlike_maker',
  'capture.jpeg.layout_unlike_tables',
  'capture.jpeg.layout_unlike_model',
  'capture.size.not_device',
  'capture.size.resized',
  'capture.makernote.missing',
  'capture.makernote.malformed',
  'capture.thumbnail.absent',
  'capture.thumbnail.turned',
  'capture.thumbnail.software',
  'capture.format.not_capture',
  'capture.heic.structure_mismatch',
  'capture.heic.software_encoder',
  'capture.dates.inconsistent',
]);

/**
 * Every other capture finding with weight > 0 says the file's camera data and its pixels do not belong together: a
 * thumbnail of another picture or of another shape (cropped or replaced), a recorded size of another shape, another
 * maker's compression. Those, and only those, are called a sign of manipulation. Each was measured on unedited
 * originals of several makers in all eight EXIF orientations and on phone HEIC before it was allowed to say so
 * (test/unit/analysis/capture-orientation.test.ts, test/eval/capture-forgery.ts); a check that fails that bar
 * belongs in RESAVE_SIGNS or stays silent (weight 0).
 */
export const isResaveSign = (code: string): boolean => RESAVE_SIGNS.has(code);
