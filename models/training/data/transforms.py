# The "same transforms for both classes" pipeline of Data v1: every training image, AI or authentic, leaves here with
# a size, aspect, crop, encoder, quality and (no) metadata drawn from one class-independent distribution, so the file
# format stops telling the classes apart. Deterministic: the same (seed, key) always gives the same bytes.
import hashlib
import io
import random

from PIL import Image, ImageFilter

ASPECTS = [(1, 1), (4, 3), (3, 4), (3, 2), (2, 3), (16, 9), (9, 16)]
LONG_SIDES = (320, 1600)   # output long side, log-uniform: independent of the input's size
UI_COLOURS = [(255, 255, 255), (0, 0, 0), (242, 242, 247), (28, 28, 30), (18, 18, 18), (245, 245, 245)]


def rng_for(seed, key):
    h = hashlib.sha256(('%s|%s' % (seed, key)).encode()).digest()
    return random.Random(int.from_bytes(h[:8], 'big'))


def _crop_aspect(im, r):
    """Largest crop of a random class-independent aspect, then a random 55-100 % sub-crop of it."""
    aw, ah = r.choice(ASPECTS)
    W, H = im.size
    if W * ah > H * aw:
        h, w = H, H * aw / ah
    else:
        w, h = W, W * ah / aw
    s = r.uniform(0.55, 1.0) ** 0.5
    w, h = max(8, int(w * s)), max(8, int(h * s))
    x, y = r.randint(0, W - w), r.randint(0, H - h)
    return im.crop((x, y, x + w, y + h))


def _resize_long(im, long_side, r):
    W, H = im.size
    k = long_side / max(W, H)
    size = (max(8, round(W * k)), max(8, round(H * k)))
    method = r.choice([Image.BILINEAR, Image.BICUBIC, Image.LANCZOS, Image.BOX])
    if k < 0.5 and r.random() < 0.5:  # two-step down-scaling, as many apps do
        mid = (max(8, round(W * k * 2)), max(8, round(H * k * 2)))
        im = im.resize(mid, method)
    return im.resize(size, method)


def _screenshot(im, r):
    """A phone/desktop screenshot look: the picture on a UI background with bars, at a screen-like scale."""
    W, H = im.size
    colour = r.choice(UI_COLOURS)
    top, bottom = int(H * r.uniform(0.04, 0.15)), int(H * r.uniform(0.0, 0.2))
    side = int(W * r.uniform(0.0, 0.08))
    canvas = Image.new('RGB', (W + 2 * side, H + top + bottom), colour)
    canvas.paste(im, (side, top))
    bar = tuple(min(255, c + 12) if sum(colour) < 300 else max(0, c - 12) for c in colour)
    canvas.paste(Image.new('RGB', (canvas.width, max(1, top // 3)), bar), (0, 0))
    return canvas


def _palette(im, r):
    """A palette image as web compressors (pngquant-like PNG-8) and GIF write it: 32-256 colours, dithered or not."""
    colours = r.choice([32, 64, 128, 256, 256, 256])
    dither = Image.Dither.FLOYDSTEINBERG if r.random() < 0.7 else Image.Dither.NONE
    method = r.choice([Image.Quantize.MEDIANCUT, Image.Quantize.MAXCOVERAGE, Image.Quantize.FASTOCTREE])
    return im.quantize(colours, method=method, dither=dither), dict(colours=colours, dither=dither != Image.Dither.NONE)


def transform(im, seed, key, p_screenshot=0.15, p_palette=0.0):
    """-> (bytes, facts). `im` is a decoded PIL image; EXIF orientation is ignored on purpose (both classes).
    p_palette: the share of outputs written as palette PNGs instead of the drawn encoder (both classes alike). It is
    drawn from its own stream, so p_palette=0 (the default, every cache and run recorded before 2026-11-27) gives
    the same bytes as before it existed."""
    r = rng_for(seed, key)
    rp = rng_for('%s|palette' % seed, key)
    to_palette = rp.random() < p_palette
    im = im.convert('RGB')
    facts = {}
    if r.random() < 0.85:
        im = _crop_aspect(im, r)
        facts['crop'] = im.size
    long_side = int(round(LONG_SIDES[0] * (LONG_SIDES[1] / LONG_SIDES[0]) ** r.random()))
    im = _resize_long(im, long_side, r)
    if r.random() < 0.1:
        im = im.filter(ImageFilter.UnsharpMask(radius=r.uniform(0.5, 2), percent=r.randint(30, 120), threshold=2))
    if r.random() < p_screenshot:
        im = _screenshot(im, r)
        facts['screenshot'] = True
    if r.random() < 0.5:  # a second, smaller rescale (re-shared copies); also hides the first rescale's size
        im = _resize_long(im, int(max(im.size) * r.uniform(0.5, 1.0)), r)
    buf = io.BytesIO()
    if to_palette:
        pal, pf = _palette(im, rp)
        pal.save(buf, 'PNG', optimize=rp.random() < 0.5)
        facts.update(encoder='png-palette', **pf)
        return buf.getvalue(), facts
    u = r.random()
    if u < 0.70:
        q = r.randint(50, 98)
        sub = r.choice([0, 1, 2, 2, 2])  # 4:4:4, 4:2:2, 4:2:0 (most common)
        im.save(buf, 'JPEG', quality=q, subsampling=sub, optimize=r.random() < 0.5, progressive=r.random() < 0.2)
        facts.update(encoder='jpeg', quality=q, subsampling=sub)
        if r.random() < 0.3:  # a second JPEG generation at another quality
            im2 = Image.open(io.BytesIO(buf.getvalue())).convert('RGB')
            buf = io.BytesIO()
            q2 = r.randint(60, 95)
            im2.save(buf, 'JPEG', quality=q2, subsampling=sub)
            facts['quality2'] = q2
    elif u < 0.85:
        q = r.randint(50, 95)
        im.save(buf, 'WEBP', quality=q, method=r.randint(2, 5))
        facts.update(encoder='webp', quality=q)
    else:
        im.save(buf, 'PNG', compress_level=r.randint(1, 9))
        facts.update(encoder='png')
    return buf.getvalue(), facts


def open_image(data):
    """Decode for the pipeline, the same way for every format (no JPEG draft scaling, whose DCT-domain shrink would
    mark camera JPEGs); transparency is flattened on white; EXIF orientation is deliberately not applied."""
    im = Image.open(io.BytesIO(data))
    if im.mode in ('RGBA', 'LA', 'P'):
        im = im.convert('RGBA')
        bg = Image.new('RGBA', im.size, (255, 255, 255, 255))
        im = Image.alpha_composite(bg, im)
    return im


if __name__ == '__main__':  # self-check: deterministic, and p_palette=0 leaves every earlier output unchanged
    import sys
    import numpy as np
    rs = np.random.RandomState(0)
    base = Image.fromarray((rs.rand(300, 420, 3) * 255).astype('uint8')).filter(ImageFilter.GaussianBlur(2))
    ref = sys.argv[1] if len(sys.argv) > 1 else None  # a digest printed by the previous version, to compare
    h = hashlib.sha256()
    for k in range(40):
        h.update(transform(base, 'sem0', 'k%d' % k)[0])
    print('p_palette=0 digest', h.hexdigest())
    if ref:
        assert h.hexdigest() == ref, 'p_palette=0 changed the bytes'
    outs = [transform(base, 'sem0', 'k%d' % k, p_palette=0.3) for k in range(40)]
    again = [transform(base, 'sem0', 'k%d' % k, p_palette=0.3) for k in range(40)]
    assert all(a[0] == b[0] for a, b in zip(outs, again)), 'not deterministic'
    n = sum(f['encoder'] == 'png-palette' for _, f in outs)
    assert all(Image.open(io.BytesIO(b)).mode == 'P' for b, f in outs if f['encoder'] == 'png-palette')
    print('palette outputs at p=0.3: %d of 40' % n)
