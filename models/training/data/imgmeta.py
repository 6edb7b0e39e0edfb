# File-format facts of one image (type, size, JPEG quality from its DQT, chroma subsampling, EXIF make/model,
# text chunks) and a perceptual hash: the manifests, the dedup and the format-only baseline all read these.
import io
import re

import numpy as np
from PIL import Image, ImageOps

Image.MAX_IMAGE_PIXELS = 200_000_000

# IJG standard luminance quantisation table (quality 50), natural order: the quality estimate scales against it.
_STD_LUMA = np.array([
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99], dtype=np.float64)
_ZIGZAG = np.array([
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
    28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61,
    54, 47, 55, 62, 63])


def jpeg_quality(qtables):
    """IJG-equivalent quality of the luminance table (Pillow gives tables in zigzag order)."""
    if not qtables or 0 not in qtables:
        return None
    zz = np.asarray(qtables[0], dtype=np.float64)
    nat = np.empty(64)
    nat[_ZIGZAG] = zz
    s = float(np.mean(nat / _STD_LUMA) * 100.0)
    q = (200.0 - s) / 2.0 if s <= 100.0 else 5000.0 / s
    return round(min(100.0, max(1.0, q)), 1)


def webp_kind(b):
    if len(b) > 16 and b[:4] == b'RIFF' and b[8:12] == b'WEBP':
        chunk = b[12:16]
        if chunk == b'VP8L':
            return 'webp-lossless'
        if chunk == b'VP8X':
            return 'webp-lossless' if b'VP8L' in b[:4096] and b'VP8 ' not in b[:4096] else 'webp-lossy'
        return 'webp-lossy'
    return None


def dhash(img):
    """64-bit difference hash of a greyscale 9x8 reduction (as a 16-hex-digit string)."""
    g = np.asarray(img.convert('L').resize((9, 8), Image.BILINEAR), dtype=np.int16)
    bits = (g[:, 1:] > g[:, :-1]).flatten()
    return '%016x' % int(''.join('1' if x else '0' for x in bits), 2)


HEIF_BRANDS = (b'heic', b'heix', b'heim', b'heis', b'hevc', b'hevx', b'mif1', b'msf1')


def is_heif(b):
    return len(b) > 12 and b[4:8] == b'ftyp' and b[8:12] in HEIF_BRANDS


def _heif_exif(b):
    """EXIF of a HEIF file: its Exif item is stored as a 4-byte offset then 'Exif' + two NULs and a TIFF header."""
    ex = Image.Exif()
    for tiff in (b'Exif\x00\x00MM\x00*', b'Exif\x00\x00II*\x00'):
        i = b.find(tiff)
        if i >= 0:
            try:
                ex.load(b[i:])
            except Exception:  # noqa: BLE001 - unreadable EXIF: none
                pass
            break
    return ex


def describe_heif(b, pixels=True):
    """HEIC/HEIF (Pillow 9 cannot read it here): the primary image is decoded with libheif's heif-convert into a
    temporary JPEG for the size and hashes; EXIF make/model are read from the file's own Exif item."""
    import glob
    import os
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as td:
        src = os.path.join(td, 'in.heic')
        open(src, 'wb').write(b)
        subprocess.run(['heif-convert', '-q', '90', src, os.path.join(td, 'out.jpg')], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False, timeout=120)
        outs = [os.path.join(td, 'out.jpg')] if os.path.exists(os.path.join(td, 'out.jpg')) else sorted(
            glob.glob(os.path.join(td, 'out-*.jpg')))
        if not outs:
            raise ValueError('heif-convert could not decode this HEIF file')
        im = Image.open(outs[0])
        im.load()
    exif = _heif_exif(b)
    info = dict(format='heic', bytes=len(b), width=im.width, height=im.height, exif=int(len(exif) > 0))
    info['make'] = str(exif.get(0x010F, '') or '').strip('\x00 ').strip()
    info['model'] = str(exif.get(0x0110, '') or '').strip('\x00 ').strip()
    info['software'] = str(exif.get(0x0131, '') or '').strip('\x00 ').strip()[:60]
    info['icc'] = int(b'prof' in b[:65536])
    info['xmp'] = int(b'http://ns.adobe.com/xap/1.0/' in b)
    info['text_chunks'] = 0
    info['mode'] = 'RGB'
    if not pixels:
        return info
    small = im.convert('RGB')
    small.thumbnail((128, 128), Image.BILINEAR)
    info['dhash'] = dhash(small)
    info['_thumb'] = np.asarray(small.convert('L'), dtype=np.uint8)
    return info


def describe(b, pixels=True):
    """Facts of one file's bytes (with pixels=False: header facts only, no decoding); raises on files Pillow cannot
    decode (HEIC/HEIF goes through describe_heif)."""
    if is_heif(b):
        return describe_heif(b, pixels)
    im = Image.open(io.BytesIO(b))
    fmt = (im.format or '?').lower()
    info = dict(format=fmt, bytes=len(b), width=im.width, height=im.height)
    if fmt == 'webp':
        info['format'] = webp_kind(b) or 'webp'
    if fmt in ('jpeg', 'mpo'):  # MPO = a camera's multi-picture JPEG; its first picture is a plain JPEG
        fmt = 'jpeg'
        info['format'] = 'jpeg'
        info['jpeg_quality'] = jpeg_quality(getattr(im, 'quantization', None))
        try:
            from PIL import JpegImagePlugin
            info['subsampling'] = {0: '444', 1: '422', 2: '420'}.get(JpegImagePlugin.get_sampling(im), 'other')
        except Exception:  # noqa: BLE001 - greyscale JPEGs have no sampling
            info['subsampling'] = 'grey' if im.mode == 'L' else 'other'
        info['progressive'] = int(bool(im.info.get('progressive') or im.info.get('progression')))
        info['n_qtables'] = len(getattr(im, 'quantization', {}) or {})
    exif = im.getexif()
    info['exif'] = int(len(exif) > 0)
    make = str(exif.get(0x010F, '') or '').strip('\x00 ').strip()
    model = str(exif.get(0x0110, '') or '').strip('\x00 ').strip()
    info['make'] = make
    info['model'] = model
    info['software'] = str(exif.get(0x0131, '') or '').strip('\x00 ').strip()[:60]
    info['icc'] = int(bool(im.info.get('icc_profile')))
    info['xmp'] = int(b'http://ns.adobe.com/xap/1.0/' in b[:65536] or 'xmp' in im.info
                      or 'XML:com.adobe.xmp' in im.info)
    info['text_chunks'] = int(fmt == 'png' and any(k not in ('dpi', 'gamma', 'srgb', 'icc_profile', 'exif',
                                                               'transparency', 'aspect', 'chromaticity')
                                                    for k in im.info))
    info['mode'] = im.mode
    if not pixels:
        return info
    # decode a small copy for the hashes (draft makes JPEG decoding at 1/8 scale cheap)
    if fmt == 'jpeg':
        im.draft('RGB', (128, 128))
    small = im.convert('RGB')
    small.thumbnail((128, 128), Image.BILINEAR)
    info['dhash'] = dhash(small)
    info['_thumb'] = np.asarray(small.convert('L'), dtype=np.uint8)
    return info


def device_label(info):
    make, model = info.get('make', ''), info.get('model', '')
    if not make and not model:
        return 'unknown device (no EXIF make/model)'
    make = re.sub(r'\s+', ' ', make)
    model = re.sub(r'\s+', ' ', model)
    if make and model.lower().startswith(make.split(' ')[0].lower()):
        return model
    return (make + ' ' + model).strip()
