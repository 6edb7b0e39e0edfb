# Crop cache for veracity-detector 1.0: decodes every training image of Data v1 (models/training/.data/images, from
# data/restore.py) and of ../shared/datasets/train once per pass and writes 192-px crops to .cache/crops1/ as shards,
# so that training reads arrays instead of decoding 12-MP JPEGs. Both classes go through the same two paths:
#   - 'transformed': data/transforms.py (random aspect crop, resize to 320-1600 px, screenshot look, second rescale,
#     JPEG q50-98 / WebP / PNG; class-independent), decoded again, then random crops;
#   - 'native': random crops at the original resolution (no resampling: the generator's own pixel grid, the camera's
#     own noise), each re-encoded by one class-independent encoder draw (JPEG q60-98 any subsampling / WebP q60-95 /
#     left lossless).
# Usage: nice -n 19 python3 crops_v1.py [--new | --d21 | --d23] PASS [PASS...]   (pass = seed; each pass writes <pass>_<shard>.npz;
#        --new: Data 2.0's new training sources into crops2/, --d21: Data 2.1's training sources into crops3/,
#        --d23: Data 2.3's training faces into crops4/)
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data'))
import common  # noqa: E402
import transforms  # noqa: E402
import sources as data_sources  # noqa: E402
import imgmeta  # noqa: E402

Image.MAX_IMAGE_PIXELS = 60_000_000
CROP = 192
PER_PATH = 2          # crops per path per image per pass
SHARD = 400           # images per shard
OUT = os.path.join(common.CACHE, 'crops1')
V1 = os.path.join(common.HERE, '.data', 'images')


def v1_split():
    return {s['name']: s['split'] for s in data_sources.SOURCES}


def training_files(split='train', data21=False, data22=False, data23=False, data27=False):
    """[(label, source, path)]: Data v1 sources of that split, plus shared/datasets/train sources of that split.
    data21: False (default) leaves Data 2.1's sources out (every cache and run before them), True takes them too,
    'only' gives them alone (no shared/datasets/train files either). data22 does the same for Data 2.2's sources
    (real portraits, added after every cache and run of Data 2.1), independently: they are out unless it is True or
    'only', and 'only' gives them alone. data23='only' gives Data 2.3's sources alone; every other list leaves them out.
    data27='only' does the same for Data 2.7's (today's generators' licensed photoreal files)."""
    out = []
    splits = v1_split()
    alone = 'only' in (data21, data22)
    for label in ('ai', 'real'):
        d = os.path.join(V1, label)
        for src in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if splits.get(src) != split:
                continue
            if (src in data_sources.DATA23) != (data23 == 'only'):  # Data 2.3 (faces): only in lists asking for it alone
                continue
            if (src in data_sources.DATA27) != (data27 == 'only'):  # Data 2.7: only in lists asking for it alone
                continue
            if src in data_sources.DATA22:
                if data22 not in (True, 'only'):
                    continue
            elif src in data_sources.DATA21:
                if data21 not in (True, 'only') or data22 == 'only':
                    continue
            elif alone:
                continue
            for p in sorted(os.listdir(os.path.join(d, src))):
                out.append((label, 'v1/' + src, os.path.join(d, src, p)))
    for label, src, path in ([] if alone or 'only' in (data23, data27) else common.list_files('train')):
        if (label, src) == ('real', 'dreambooth'):
            continue  # the same google/dreambooth photos are Data v1's validation source v1/google__dreambooth
        held = (label, src) in common.VAL_SOURCES
        if held == (split == 'val'):
            out.append((label, 'train/' + src, path))
    return out


def encode_like(im, r):
    """One class-independent encoder draw for a native crop."""
    u = r.random()
    if u < 0.6:
        buf = io.BytesIO()
        im.save(buf, 'JPEG', quality=r.randint(60, 98), subsampling=r.choice([0, 1, 2, 2]))
    elif u < 0.75:
        buf = io.BytesIO()
        im.save(buf, 'WEBP', quality=r.randint(60, 95), method=4)
    else:
        return np.asarray(im)
    return np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert('RGB'))


def random_crops(arr, n, r):
    h, w = arr.shape[:2]
    if h < CROP or w < CROP:
        return []
    out = []
    for _ in range(n):
        y, x = r.randint(0, h - CROP), r.randint(0, w - CROP)
        out.append(arr[y:y + CROP, x:x + CROP])
    return out


def open_any(data):
    """Pillow 9 cannot read HEIC/HEIF here: libheif's heif-convert decodes the primary image to PNG (lossless, so
    the phone's own compression is all the file carries, as for every other original)."""
    if not imgmeta.is_heif(data):
        return transforms.open_image(data)
    with tempfile.TemporaryDirectory() as td:
        src, dst = os.path.join(td, 'in.heic'), os.path.join(td, 'out.png')
        with open(src, 'wb') as f:
            f.write(data)
        subprocess.run(['heif-convert', src, dst], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                       timeout=120)
        im = Image.open(dst)
        im.load()
        return im


def bring_to(im, size, quality):
    """The picture at most `size` px on a side (Lanczos) and JPEG-encoded at `quality`, decoded again: one source's
    files given another's size and encoding history before any view or crop, so neither is the signal."""
    im = im.copy()
    im.thumbnail((size, size), Image.LANCZOS)
    buf = io.BytesIO()
    im.save(buf, 'JPEG', quality=quality)
    return Image.open(io.BytesIO(buf.getvalue())).convert('RGB')


PREP = None  # (source regex, size, JPEG quality): --d23 brings FFHQ's 1024-px q75 real faces to the 512-px q90 JPEGs
#              its StyleGAN counterpart was served as, before any crop (size and encoding must not be the signal)


def crops_for(path, seed):
    r = transforms.rng_for('crops1-%d' % seed, path)
    with open(path, 'rb') as f:
        data = f.read()
    im = open_any(data).convert('RGB')
    if PREP and re.search(PREP[0], path):
        im = bring_to(im, PREP[1], PREP[2])
    res = []
    b, _ = transforms.transform(im, 'crops1-%d' % seed, path)
    t = np.asarray(Image.open(io.BytesIO(b)).convert('RGB'))
    res += [(c, 0) for c in random_crops(t, PER_PATH, r)]
    nat = np.asarray(im)
    for c in random_crops(nat, PER_PATH, r):
        res.append((encode_like(Image.fromarray(c), r), 1))
    return res


def main():
    global OUT, PREP
    args = sys.argv[1:]
    files = training_files('train')
    if args and args[0] == '--new':
        # Data 2.0: only the training sources that the first cache (crops1) does not hold, into crops2/
        old = set(json.load(open(os.path.join(OUT, 'index.json')))['sources'])
        files = [f for f in files if f[1] not in old]
        OUT = os.path.join(common.CACHE, 'crops2')
        args = args[1:]
    elif args and args[0] == '--d23':
        # Data 2.3's training faces (StyleGAN faces, FFHQ's real faces brought to their size and quality), into crops4/
        PREP = ('realorfake__real', 512, 90)
        files = training_files('train', data23='only')
        OUT = os.path.join(common.CACHE, 'crops4')
        args = args[1:]
    elif args and args[0] == '--d21':
        # Data 2.1's training sources alone (house listing photos, an imaging library's camera files, API outputs of
        # DALL-E 3 / Imagen 4 / FLUX / Grok / SDXL Turbo), into crops3/
        files = training_files('train', data21='only')
        OUT = os.path.join(common.CACHE, 'crops3')
        args = args[1:]
    os.makedirs(OUT, exist_ok=True)
    srcs = sorted({s for _, s, _ in files})
    json.dump({'sources': srcs, 'crop': CROP, 'files': len(files)}, open(os.path.join(OUT, 'index.json'), 'w'))
    for seed in [int(a) for a in args]:
        order = list(range(len(files)))
        random.Random(seed).shuffle(order)
        t0 = time.time()
        part, parts = (int(v) for v in os.environ.get('CROPS_PART', '0/1').split('/'))  # split a pass across workers
        for si in range(0, len(order), SHARD):
            name = os.path.join(OUT, '%d_%03d.npz' % (seed, si // SHARD))
            if os.path.exists(name) or (si // SHARD) % parts != part:
                continue
            xs, ys, ss, ks = [], [], [], []
            for i in order[si:si + SHARD]:
                label, src, path = files[i]
                try:
                    got = crops_for(path, seed)
                except Exception as e:  # noqa: BLE001 - a broken file is skipped, and said
                    print('skip', path, e, flush=True)
                    continue
                for c, k in got:
                    xs.append(c)
                    ys.append(1 if label == 'ai' else 0)
                    ss.append(srcs.index(src))
                    ks.append(k)
            tmp = name + '.tmp.npz'
            np.savez(tmp, x=np.stack(xs), y=np.array(ys, np.uint8), s=np.array(ss, np.int16), k=np.array(ks, np.uint8))
            os.replace(tmp, name)
            print('pass %d shard %d: %d crops, %.0f s' % (seed, si // SHARD, len(xs), time.time() - t0), flush=True)


if __name__ == '__main__':
    main()
