# Shared pieces of the semantic branch: paths, the 224-px input (whole image resized, nsfwjs' way), the trunk/head
# split of MobileNetV2, the file lists (the same files as the shipped model's score files, so the two branches fuse
# file by file) and the training subsample.
import io
import json
import os
import random
import sys

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
TRAINING = os.path.dirname(HERE)
sys.path.insert(0, TRAINING)
sys.path.insert(0, os.path.join(TRAINING, 'data'))
import common  # noqa: E402
import transforms  # noqa: E402

OUT = os.path.join(HERE, 'out')
# The checkout whose runs/ holds the shipped model's score files; their paths are relative to it, and val_tx's
# transform key is the absolute path there (eval_v1.py), so the same transformed bytes are rebuilt here.
MAIN = os.environ.get('VERACITY_MAIN', '/work/main/models/training')
SHIPPED_RUN = os.path.join(MAIN, 'runs', 'v1-ft-data2')
# SEM_CACHE / SEM_SPLIT: a second cache cut lower in the trunk (e.g. semantic_b9 at block_9_add, so blocks 10-16
# can be fine-tuned) lives beside the first; the defaults are the cache of sem-ft4 (shipped in 1.1.0).
CACHE = os.path.join(common.CACHE, os.environ.get('SEM_CACHE', 'semantic'))
RUNS = common.RUNS
# SEM_MODEL: the nsfwjs backbone (mobilenet_v2 at 224 px, or inception_v3 at 299 px, nsfwjs' own size for it); both
# take RGB / 255. OUT_LAYER / FEAT: its last feature map before the pooled head, and that map's channels.
MODEL = os.environ.get('SEM_MODEL', 'mobilenet_v2')
SIZE = int(os.environ.get('SEM_SIZE', '299' if MODEL == 'inception_v3' else '224'))
OUT_LAYER, FEAT = ('mixed10', 2048) if MODEL == 'inception_v3' else ('out_relu', 1280)
SPLIT = os.environ.get('SEM_SPLIT', 'mixed8' if MODEL == 'inception_v3' else 'block_12_add')  # frozen trunk: input .. SPLIT; the rest trains
Image.MAX_IMAGE_PIXELS = 60_000_000
EVAL_SETS = ('val_raw', 'val_tx', 'modern_raw', 'modern_jpeg90', 'val_q70', 'val_half', 'modern_palette', 'val_palette',
             'val21_raw', 'val21_tx', 'd21train_raw',  # val21_*: the validation sources added by Data 2.1 (eval_v1.val21_files)
             'valpt_raw', 'valpt_tx', 'valface_raw',  # valface_raw: eval_v1.valface_files; valpt_*: Data 2.2's validation sources, real portraits (eval_v1.valpt_files)
             'val23_raw',  # val23_raw: Data 2.3's AI portraits, for measuring only (eval_v1.val23_files)
             'val24_raw', 'val24_q90',  # Data 2.4's downloads of today's generators, as is / JPEG q90 (eval_v1.val24_files)
             'valtilt_raw', 'valtilt_tx',  # validation portraits turned +20 / -30 degrees (eval_v1.valtilt_files)
             'val26_raw', 'val26_q90', 'val27_raw', 'val27_q90',  # measuring only: Data 2.6's API outputs, Data 2.7's held-out Grok files
             'd27train_tx')  # Data 2.7's training files, transformed: the eighteenth session's refit probe (probe_fit27.py)


def decode(data):
    """As eval_v1.decode (the product's sharp .removeAlpha().raw()): alpha dropped, orientation not applied."""
    im = Image.open(io.BytesIO(data))
    im.load()
    if im.mode in ('RGBA', 'LA'):
        im = im.convert('RGBA').convert('RGB')
    return np.asarray(im.convert('RGB'), dtype=np.uint8)


def to224(arr):
    """The semantic branch's input: the whole picture resized to SIZE x SIZE (224 for MobileNetV2, 299 for InceptionV3) (aspect not kept, nothing cropped away,
    as nsfwjs feeds its models), antialiased bilinear (PIL; reducing_gap for speed on 12-MP files)."""
    im = Image.fromarray(arr)
    return np.asarray(im.resize((SIZE, SIZE), Image.BILINEAR, reducing_gap=3.0), dtype=np.uint8)


def jpeg(arr, q):
    b = io.BytesIO()
    Image.fromarray(arr).save(b, 'JPEG', quality=q)
    return np.asarray(Image.open(io.BytesIO(b.getvalue())).convert('RGB'))


def tx(data, key, seed='eval-v1'):
    b, _ = transforms.transform(transforms.open_image(data), seed, key)
    return np.asarray(Image.open(io.BytesIO(b)).convert('RGB'))


def shipped_rows(name):
    return json.load(open(os.path.join(SHIPPED_RUN, 'scores-%s.json' % name)))['rows']


def cache_rows(name, d):
    """The shipped run's row of each entry of an evaluation cache d (cache.py's <set>.npz), as (entry index, row):
    matched by path (withdraw.py adds it to caches made before it); an entry whose row is gone (a withdrawn source) is
    left out."""
    rows = shipped_rows(name)
    if 'path' not in d:
        raise ValueError('%s: an evaluation cache without paths; run withdraw.py first' % name)
    by = {r['path']: r for r in rows}
    return [(k, by[str(p)]) for k, p in enumerate(d['path']) if str(p) in by]


def eval_files(name):
    """[(label, source, relpath, abspath)] of the shipped model's score file for that set, in its order."""
    return [(r['label'], r['source'], r['path'], os.path.normpath(os.path.join(MAIN, r['path']))) for r in shipped_rows(name)]


def eval_input(name, data, abspath):
    if name in ('val_raw', 'modern_raw', 'val21_raw', 'd21train_raw', 'valpt_raw', 'val23_raw', 'val24_raw', 'valtilt_raw',
                'val26_raw', 'val27_raw'):
        return decode(data)
    if name in ('val24_q90', 'val26_q90', 'val27_q90'):
        return jpeg(decode(data), 90)
    if name == 'valface_raw':
        import eval_v1
        return eval_v1.face_crop(data, abspath)
    if name == 'modern_jpeg90':
        return jpeg(decode(data), 90)
    if name in ('val_tx', 'val21_tx', 'valpt_tx', 'valtilt_tx', 'd27train_tx'):
        return tx(data, abspath)
    if name in ('modern_palette', 'val_palette'):  # both classes as dithered 256-colour palette images (eval_v1.palette)
        return np.asarray(Image.fromarray(decode(data)).quantize(256, dither=Image.Dither.FLOYDSTEINBERG).convert('RGB'))
    if name == 'val_q70':  # decision flips, as eval_v1.py builds them
        return jpeg(decode(data), 70)
    if name == 'val_half':
        im = Image.fromarray(decode(data))
        return np.asarray(im.resize((max(1, im.width // 2), max(1, im.height // 2)), Image.BICUBIC))
    raise ValueError(name)


def parity_files():
    rows = eval_files('val_raw') + eval_files('modern_raw')
    pick = []
    for lab in ('ai', 'real'):
        for pre in ('v1/', 'train/', 'modern/'):
            c = [r for r in rows if r[0] == lab and r[1].startswith(pre)]
            if c:
                pick.append(c[len(c) // 2][3])
    return pick


def train_subsample(total=6000, seed=0, data21=False, data22=False, data23=False, data27=False):
    """Training files (crops_v1.training_files('train'): Data 2.0 train sources + shared/datasets/train minus its
    held-out sources), subsampled per source: each class gets total/2 images, a source's share ~ sqrt(its size)
    (capped at its size), as train_v1.py weights sources."""
    import crops_v1
    files = [f for f in crops_v1.training_files('train', data21, data22, data23, data27) if not f[2].lower().endswith(('.heic', '.heif'))]
    by = {}
    for f in files:
        by.setdefault((f[0], f[1]), []).append(f)
    out = []
    for label in ('ai', 'real'):
        keys = sorted(k for k in by if k[0] == label)
        sizes = {k: len(by[k]) for k in keys}
        # water-filling: quota_k = min(size_k, c*sqrt(size_k)) summing to total/2
        lo, hi = 0.0, 1000.0
        for _ in range(60):
            c = (lo + hi) / 2
            s = sum(min(sizes[k], c * np.sqrt(sizes[k])) for k in keys)
            lo, hi = (c, hi) if s < total / 2 else (lo, c)
        for k in keys:
            fs = sorted(by[k])
            random.Random('sem|%s|%s|%d' % (k[0], k[1], seed)).shuffle(fs)
            out += fs[:int(round(min(sizes[k], lo * np.sqrt(sizes[k]))))]
    return out
