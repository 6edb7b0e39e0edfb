// Software that edits, converts or rewrites images: one list, read by the provenance detector (`provenance.editor`,
// "Edited with: ...") and by the capture check (`capture.software.edited`, `capture.xmp.edit_history`). A name found
// in a Software tag, an XMP CreatorTool or history agent, or a C2PA action's softwareAgent means the file passed
// through that program after capture. Camera firmware strings ("Ver.1.00", "14.0", "HDR+ 1.0") match none of them.
//
// Source: a hand-compiled list of programs as they name themselves in those fields (written for the capture check,
// commit a318863, issue #11), not an external registry; test/tools/corpus-survey.ts shows which files of the
// evaluation corpora each entry matches. Generators are not editors: Adobe Firefly and the like are in provenance.ts's
// AI_GENERATORS. Until issue #14 provenance.ts kept a shorter copy of its own; README.md ("Editing software") gives
// what merging the two changed.

/** [pattern matched case-insensitively anywhere in the string, name shown to people]. First match wins. */
export const EDITING_SOFTWARE: readonly (readonly [RegExp, string])[] = [
  [/photoshop/i, 'Adobe Photoshop'],
  [/lightroom/i, 'Adobe Lightroom'],
  [/camera raw/i, 'Adobe Camera Raw'],
  [/adobe express/i, 'Adobe Express'],
  [/\bgimp\b/i, 'GIMP'],
  [/snapseed/i, 'Snapseed'],
  [/exiftool/i, 'ExifTool'],
  [/paint\.net/i, 'Paint.NET'],
  [/picasa/i, 'Picasa'],
  [/acdsee/i, 'ACDSee'],
  [/affinity/i, 'Affinity'],
  [/pixelmator/i, 'Pixelmator'],
  [/capture one/i, 'Capture One'],
  [/darktable/i, 'darktable'],
  [/rawtherapee/i, 'RawTherapee'],
  [/luminar/i, 'Luminar'],
  [/picsart/i, 'PicsArt'],
  [/facetune/i, 'Facetune'],
  [/\bvsco\b/i, 'VSCO'],
  [/\bcanva\b/i, 'Canva'], // a word: "canvas" (HTML canvas, node-canvas) is not Canva
  [/imagemagick/i, 'ImageMagick'],
  [/graphicsmagick/i, 'GraphicsMagick'],
  [/noise ?ninja/i, 'Noise Ninja'],
  [/irfanview/i, 'IrfanView'],
  [/xnview/i, 'XnView'],
  [/photoscape/i, 'PhotoScape'],
  [/fotor/i, 'Fotor'],
  [/polarr/i, 'Polarr'],
  [/digital photo professional/i, 'Canon Digital Photo Professional'],
  [/capture nx|nx studio|viewnx/i, 'Nikon software'],
  [/silkypix/i, 'SILKYPIX'],
  [/dxo/i, 'DxO'],
  [/windows photo|microsoft windows photo|photos legacy/i, 'Windows Photos'],
  [/paintshop|paint shop/i, 'PaintShop Pro'],
  [/corel/i, 'Corel'],
  [/pixlr/i, 'Pixlr'],
  [/krita/i, 'Krita'],
  [/python|pil\b|pillow|libvips|sharp\b/i, 'an image library'],
];

/** The editor a string names, or null. */
export function editorOf(value: string): string | null {
  for (const [re, name] of EDITING_SOFTWARE) if (re.test(value)) return name;
  return null;
}

/** The first editor named in any of these strings, or null. */
export function editorIn(values: readonly string[]): string | null {
  for (const v of values) {
    const name = v ? editorOf(v) : null;
    if (name) return name;
  }
  return null;
}
