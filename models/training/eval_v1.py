# Scores a veracity-detector 1.0 checkpoint the way the product does (native-resolution TILE tiles on a STRIDE grid,
# evenly sampled down to HEAT tiles; the file score is a top-k mean over the scoring subset) on:
#   val_raw  - the by-source validation split (Data v1 val sources + shared/datasets/train's held-out sources), as is;
#   val_tx   - the same files through data/transforms.py, both classes (the format baseline is at chance there);
#   modern_raw / modern_jpeg90 / modern_tx - ../shared/datasets/modern/ as is, both classes JPEG q90, transforms.py;
#   val_q70 / val_half - val_raw files at JPEG q70 and at 50 % size (decision flips);
#   modern_palette / val_palette - both classes as 256-colour dithered palette images (modern/'s GPT-4o/Sora files are).
# Writes runs/RUN/scores-<set>.json: per file {label, source, path, tiles: [...tile probabilities in heat order],
# grid: N}; figures are computed from these by card_v1.py, so aggregations can be compared without re-running.
#   OMP_NUM_THREADS=1 nice /usr/bin/python3 eval_v1.py RUN [--ckpt ema-03000.pt] [--sets val_tx,modern_raw]
import argparse
import io
import json
import os
import random
import sys
import time

import numpy as np
import torch
from PIL import Image

import common
from safe_model import SafeNet

sys.path.insert(0, os.path.join(common.HERE, 'data'))
import transforms  # noqa: E402
import crops_v1  # noqa: E402

TILE = 192
STRIDE = 96
HEAT = int(os.environ.get('EVAL_HEAT', '64'))  # tiles kept per file; 32 = only the scoring subset (same file score, half the time)
assert HEAT in (32, 64), 'EVAL_HEAT is 64 (the heatmap sample) or 32 (the scoring subset alone)'
PER_SOURCE = int(os.environ.get('EVAL_PER_SOURCE', '120'))  # validation files per source at most (seeded sample)
Image.MAX_IMAGE_PIXELS = 60_000_000


def grid_origins(w, h, tile=TILE, stride=STRIDE):
    if w < tile or h < tile:
        return []
    return [(x, y) for y in range(0, h - tile + 1, stride) for x in range(0, w - tile + 1, stride)]


def sample_indices(n, m):
    return list(range(n)) if n <= m else [(i * n) // m for i in range(m)]


def pad_to_tile(a, tile=TILE):
    h, w = a.shape[:2]
    ph, pw = max(0, tile - h), max(0, tile - w)
    if ph == 0 and pw == 0:
        return a
    return np.pad(a, ((ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)), mode='reflect')


def tile_probs(model, arr, heat=HEAT, batch=32):
    a = pad_to_tile(arr)
    h, w = a.shape[:2]
    grid = grid_origins(w, h)
    idx = sample_indices(len(grid), heat)
    tiles = np.stack([a[y:y + TILE, x:x + TILE] for x, y in (grid[i] for i in idx)])
    x = torch.from_numpy(tiles).float().div_(255).permute(0, 3, 1, 2)
    mean = torch.tensor(common.MEAN).view(1, 3, 1, 1)
    std = torch.tensor(common.STD).view(1, 3, 1, 1)
    x = (x - mean) / std
    out = []
    with torch.no_grad():
        for b in range(0, len(x), batch):
            out.append(torch.sigmoid(model(x[b:b + batch])).flatten())
    return torch.cat(out).tolist(), len(grid)


def load_model(run, ckpt):
    st = torch.load(os.path.join(common.RUNS, run, ckpt))
    cfg = st['config']
    m = SafeNet(tuple(cfg['widths']), npr=cfg.get('npr', False))
    m.load_state_dict(st['ema'])
    m.eval()
    return m, st.get('step')


def decode(data):
    """As the product decodes (sharp .removeAlpha().raw(): alpha dropped, not flattened; orientation not applied here,
    so files with an EXIF orientation or an ICC profile can differ from the product's score: the parity test skips them)."""
    im = Image.open(io.BytesIO(data))
    im.load()
    if im.mode in ('RGBA', 'LA'):
        im = im.convert('RGBA').convert('RGB')
    return np.asarray(im.convert('RGB'), dtype=np.uint8)


def per_source(files, tag, n):
    """At most n files of each (label, source), a seeded shuffle per source ('<tag>|label|source'), sources in order."""
    by = {}
    for f in files:
        by.setdefault((f[0], f[1]), []).append(f)
    out = []
    for k in sorted(by):
        fs = by[k]
        random.Random('%s|%s|%s' % ((tag,) + k)).shuffle(fs)
        out += fs[:n]
    return out


def val_files(data21=False):
    return per_source(crops_v1.training_files('val', data21), 'val', PER_SOURCE)


def val21_files():
    """Validation files of the Data 2.1 sources (added 2026-11-27; the validation of 1.3.1 and earlier did not hold
    them), sampled per source as val_files samples."""
    return val_files('only')


def d21train_files(n=200):
    """Data 2.1's training sources (never in the training of 1.3.1 or of runs cached before them), up to 200 files per
    source: a held-out check for models that did not train on them."""
    return per_source(crops_v1.training_files('train', 'only'), 'd21train', n)


def valpt_files():
    """Validation files of the Data 2.2 sources (real portraits, added 2026-11-27 after Data 2.1), sampled per source
    as val_files samples."""
    return per_source(crops_v1.training_files('val', data22='only'), 'val', PER_SOURCE)


def val23_files():
    """Data 2.3's measuring sources (AI portraits: FaceChain's SD LoRA portraits, a bias study's photoreal portraits,
    StyleGAN2 faces as PNG and as thispersondoesnotexist served them; no real file), sampled per source as val_files
    samples. Never in a fit or a threshold: a check of how many AI portraits a fusion calls."""
    return per_source(crops_v1.training_files('val', data23='only'), 'val', PER_SOURCE)


def measure_files(name):
    """[(label, '<name>/<group>', path)] of a measuring set restored into .data/<name>/<ai|real>/<group>/, all files."""
    root = os.path.join(common.HERE, '.data', name)
    out = []
    for label in ('ai', 'real'):
        d = os.path.join(root, label)
        for src in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            out += [(label, name + '/' + src, os.path.join(d, src, p)) for p in sorted(os.listdir(os.path.join(d, src)))]
    return out


def val24_files():
    """Data 2.4's measuring set (data/measure24.tsv, restored by data/restore_measure24.py into .data/measure24): 48
    first-generation downloads of ChatGPT, Midjourney v7 and Google Whisk, AI only, all of them. Never in a fit or a
    threshold: how many of today's generators' files a fusion calls at its thresholds."""
    return measure_files('measure24')


def val26_files():
    """Data 2.6's measuring set (data/measure26.tsv, restored by data/restore_measure24.py --set 26 into
    .data/measure26, metadata stripped): 339 first-generation API outputs of gpt-image-1-mini / gpt-image-2, Nano
    Banana / Pro / 2 and Imagen 4, AI only, all of them. Never in a fit or a threshold."""
    return measure_files('measure26')


def val27_files():
    """Data 2.7's held-out files (the Grok gallery's numbers ending in 0 or 5, 80 files, its logo rows cropped), all
    of them. Never in a training list, a fit or a threshold: how much of a generator a run trained on its other files
    calls."""
    return crops_v1.training_files('val', data27='only')


def d27train_files():
    """Data 2.7's training files (321 Grok, 25 Nano Banana), all of them: never seen by 1.5.1's networks, so a probe
    can fit 1.5.1's fusion on them (semantic/README.md, "Eighteenth session: a probe")."""
    return crops_v1.training_files('train', data27='only')


def valface_files():
    """The validation files the artefact network scored (runs/v1-ft-data2: val_raw, val21_raw, valpt_raw) in which
    portraits.py found a face of at least PEOPLE (run its tag on them first): valface_raw shows each as a 200x200 crop
    of its largest face, the way UTKFace ships its real faces (Data 2.2's training portraits), so a model that learned
    "a tight face crop is real" is caught on the AI crops."""
    import portraits
    tags = portraits.load()
    out = []
    for name in ('val_raw', 'val21_raw', 'valpt_raw'):
        for r in json.load(open(os.path.join(common.RUNS, 'v1-ft-data2', 'scores-%s.json' % name)))['rows']:
            if portraits.kind(tags.get(r['path'])) in ('portrait', 'people'):
                out.append((r['label'], r['source'], os.path.normpath(os.path.join(common.HERE, r['path']))))
    return out


def valtilt_files():
    """The tilted validation (valtilt_files.ts: validation portraits turned +20 and -30 degrees, both classes), each
    under its original's source, so that fuse.py scores it by that source's LOSO fit: [(label, source, abspath)]."""
    idx = json.load(open(os.path.join(common.HERE, '.data', 'valtilt', 'index.json')))
    return [(lab, src, os.path.normpath(os.path.join(common.HERE, p))) for lab, src, p, _orig, _deg in idx]


def face_crop(data, path):
    import portraits
    im = transforms.open_image(data).convert('RGB')
    return decode(portraits.utk_jpeg(im, portraits.face_boxes(im), 'valface|' + os.path.normpath(os.path.abspath(path))))


def modern_files():
    return [(label, 'modern/' + src, path) for label, src, path in common.list_files('modern')]


def jpeg(arr, q):
    b = io.BytesIO()
    Image.fromarray(arr).save(b, 'JPEG', quality=q)
    return np.asarray(Image.open(io.BytesIO(b.getvalue())).convert('RGB'))


def half(arr):
    im = Image.fromarray(arr)
    return np.asarray(im.resize((max(1, im.width // 2), max(1, im.height // 2)), Image.BICUBIC))


def palette(arr):
    """256 colours, Floyd-Steinberg dithered (as pngquant-like web compressors and GIF write): the same for both
    classes, so a set where one class arrives as palette PNGs can be compared with the format taken away."""
    return np.asarray(Image.fromarray(arr).quantize(256, dither=Image.Dither.FLOYDSTEINBERG).convert('RGB'))


def tx(data, key):
    b, _ = transforms.transform(transforms.open_image(data), 'eval-v1', key)
    return np.asarray(Image.open(io.BytesIO(b)).convert('RGB'))


SETS = {
    'val_raw': (val_files, lambda d, p: decode(d)),
    'val_tx': (val_files, tx),
    'val_q70': (val_files, lambda d, p: jpeg(decode(d), 70)),
    'val_half': (val_files, lambda d, p: half(decode(d))),
    'modern_raw': (modern_files, lambda d, p: decode(d)),
    'modern_jpeg90': (modern_files, lambda d, p: jpeg(decode(d), 90)),
    'modern_tx': (modern_files, tx),
    'modern_palette': (modern_files, lambda d, p: palette(decode(d))),
    'val_palette': (val_files, lambda d, p: palette(decode(d))),
    'val21_raw': (val21_files, lambda d, p: decode(d)),
    'val21_tx': (val21_files, tx),
    'd21train_raw': (d21train_files, lambda d, p: decode(d)),
    'valpt_raw': (valpt_files, lambda d, p: decode(d)),
    'val23_raw': (val23_files, lambda d, p: decode(d)),
    'val24_raw': (val24_files, lambda d, p: decode(d)),
    'val24_q90': (val24_files, lambda d, p: jpeg(decode(d), 90)),
    'val26_raw': (val26_files, lambda d, p: decode(d)),
    'val26_q90': (val26_files, lambda d, p: jpeg(decode(d), 90)),
    'val27_raw': (val27_files, lambda d, p: decode(d)),
    'val27_q90': (val27_files, lambda d, p: jpeg(decode(d), 90)),
    'd27train_tx': (d27train_files, tx),
    'valpt_tx': (valpt_files, tx),
    'valface_raw': (valface_files, face_crop),
    'valtilt_raw': (valtilt_files, lambda d, p: decode(d)),
    'valtilt_tx': (valtilt_files, tx),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('run')
    ap.add_argument('--ckpt', default='ckpt.pt')
    ap.add_argument('--sets', default='val_tx,val_raw,modern_raw,modern_jpeg90,modern_tx')
    ap.add_argument('--tag', default='')
    args = ap.parse_args()
    torch.set_num_threads(int(os.environ.get('TORCH_THREADS', '1')))
    model, step = load_model(args.run, args.ckpt)
    for name in args.sets.split(','):
        lister, fn = SETS[name]
        t0 = time.time()
        rows = []
        for label, src, path in lister():
            with open(path, 'rb') as f:
                data = f.read()
            try:
                arr = fn(data, path)
            except Exception as e:  # noqa: BLE001
                print('skip', path, e, flush=True)
                continue
            probs, n = tile_probs(model, arr)
            rows.append(dict(label=label, source=src, path=os.path.relpath(path, common.HERE), tiles=probs, grid=n,
                             size=[int(arr.shape[1]), int(arr.shape[0])]))
        out = os.path.join(common.RUNS, args.run, 'scores-%s%s.json' % (name, args.tag))
        json.dump(dict(step=step, ckpt=args.ckpt, set=name, tile=TILE, stride=STRIDE, heat=HEAT, rows=rows),
                  open(out, 'w'))
        print(name, len(rows), 'files', '%.0f s' % (time.time() - t0), flush=True)


if __name__ == '__main__':
    main()
