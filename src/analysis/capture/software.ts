// Names of software that edits, converts or rewrites images. In a Software tag or an XMP history entry they mean
// the file passed through that program after capture. Camera firmware strings ("Ver.1.00", "14.0", "HDR+ 1.0")
// match none of them.

const EDITORS: [RegExp, string][] = [
  [/photoshop/i, 'Adobe Photoshop'],
  [/lightroom/i, 'Adobe Lightroom'],
  [/camera raw/i, 'Adobe Camera Raw'],
  [/adobe (photoshop )?express|adobe firefly/i, 'Adobe'],
  [/\bgimp\b/i, 'GIMP'],
  [/snapseed/i, 'Snapseed'],
  [/exiftool/i, 'ExifTool'],
  [/paint\.net/i, 'Paint.NET'],
  [/picasa/i, 'Picasa'],
  [/acdsee/i, 'ACDSee'],
  [/affinity/i, 'Affinity Photo'],
  [/pixelmator/i, 'Pixelmator'],
  [/capture one/i, 'Capture One'],
  [/darktable/i, 'darktable'],
  [/rawtherapee/i, 'RawTherapee'],
  [/luminar/i, 'Luminar'],
  [/picsart/i, 'PicsArt'],
  [/facetune/i, 'Facetune'],
  [/\bvsco\b/i, 'VSCO'],
  [/canva/i, 'Canva'],
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

/** The first editor named in any of these strings, or null. */
export function editorIn(values: readonly string[]): string | null {
  for (const v of values) {
    if (!v) continue;
    for (const [re, name] of EDITORS) if (re.test(v)) return name;
  }
  return null;
}
