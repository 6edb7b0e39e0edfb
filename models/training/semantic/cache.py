# Caches the frozen trunk (MobileNetV2 input .. block_12_add, 14x14x96, float16) once per image view, so fine-tuning
# the last blocks costs seconds per epoch on this CPU.
#   train: the per-source sqrt-weighted subsample (sem_common.train_subsample), each image decoded once and sent
#          VIEWS times through data/transforms.py (seeds sem0, sem1 ...: class-independent crop / resize / screenshot /
#          JPEG / WebP / PNG), each result resized whole to 224x224;
#   eval:  the files of the shipped model's score files (val_raw, val_tx, modern_raw, modern_jpeg90), built the way
#          eval_v1.py builds them, resized whole to 224x224.
#   OMP_NUM_THREADS=1 nice -n 5 /usr/bin/python3 cache.py train [--total 6000] [--views 2]
#   OMP_NUM_THREADS=1 nice -n 5 /usr/bin/python3 cache.py eval
# Writes .cache/semantic/{train_<k>.npz, train.json, <set>.npz}; resumable (finished shards are kept). --save-inputs
# keeps the 224x224 inputs beside the maps (150 KB a view), so the next cut needs the trunk only, not the decoding.
import argparse
import io
import json
import os
import re
import time

import numpy as np
import torch
from PIL import Image

import keras_torch
import sem_common as S
import portraits  # noqa: E402 - sem_common put the training folder on the path
import crops_v1  # noqa: E402

SHARD = 250


def trunk():
    return keras_torch.KerasGraph(S.MODEL, end=S.SPLIT).eval()


@torch.no_grad()
def feats(model, imgs):
    x = torch.from_numpy(np.stack(imgs)).float().div_(255.0)
    return model(x).numpy().astype(np.float16)


def crop_view(im, key):
    """A second view that sees part of the scene, as crops and partial screenshots show it: a random rectangle of
    35-100 % of each side (same rule for both classes), before transforms.py."""
    import random
    r = random.Random(key)
    w, h = im.size
    cw, ch = max(32, int(w * r.uniform(0.35, 1.0))), max(32, int(h * r.uniform(0.35, 1.0)))
    x, y = r.randint(0, max(0, w - cw)), r.randint(0, max(0, h - ch))
    return im.crop((x, y, x + cw, y + ch))


def do_train(args):
    os.makedirs(S.CACHE, exist_ok=True)
    if args.data22:  # Data 2.2's training sources (real portraits) alone
        files = S.train_subsample(args.total, args.seed, data22='only')
    elif args.data23:  # Data 2.3's training sources (StyleGAN faces, FFHQ's real faces) alone
        files = S.train_subsample(args.total, args.seed, data23='only')
    elif args.data27:  # Data 2.7's training sources (today's generators' licensed photoreal files) alone
        files = S.train_subsample(args.total, args.seed, data27='only')
    else:
        files = S.train_subsample(args.total, args.seed, data21=bool(args.only_sources))
    if args.beyond:  # the files a larger subsample adds to a cache of --beyond N files (the same seed), kept apart and
        # read beside it through SEM_EXTRA_CACHES: the rest of the training pool without recaching what is cached
        have = set(S.train_subsample(args.beyond, args.seed))
        files = [f for f in files if f not in have]
    if args.only_sources:  # a cache of some sources' files only (e.g. sources added after a cache was built), kept
        # apart and read beside it through SEM_EXTRA_CACHES
        files = [f for f in files if re.search(args.only_sources, f[1])]
    if args.permissive_only:  # a build for commercial use: the subsample's files of permissive sources (data/licences.py)
        import licences
        files = [f for f in files if licences.permissive(f[1])]
    srcs = sorted({s for _, s, _ in files})
    prep = None
    if args.prep:
        rx, size, q = args.prep.rsplit(':', 2)
        prep = (rx, int(size), int(q))
    meta = dict(beyond=args.beyond, permissive_only=args.permissive_only, prep=args.prep, total=args.total, only_sources=args.only_sources, palette=args.palette, views=args.views, first_view=args.first_view, crop_views=args.crop_views, face_crops=args.face_crops, data22=args.data22, data23=args.data23, data27=args.data27, seed=args.seed, files=len(files), sources=srcs, split=S.SPLIT,
                per_source={s: sum(1 for f in files if f[1] == s) for s in srcs})
    meta_p = os.path.join(S.CACHE, 'train.json')
    if not os.path.exists(meta_p):
        json.dump(meta, open(meta_p, 'w'), indent=1)
    print('train files', len(files), 'ai', sum(f[0] == 'ai' for f in files), flush=True)
    order = list(range(len(files)))
    np.random.default_rng(args.seed).shuffle(order)
    model = trunk()
    t0 = time.time()
    part, parts = (int(a) for a in args.part.split('/'))
    for k in range(0, len(order), SHARD):
        name = os.path.join(S.CACHE, 'train_%03d.npz' % (k // SHARD))
        if (k // SHARD) % parts != part or os.path.exists(name) or not take_lock(name + '.lock'):
            continue
        imgs, ys, ss, fs, vs = [], [], [], [], []
        for i in order[k:k + SHARD]:
            label, src, path = files[i]
            try:
                data = open(path, 'rb').read()
                im = S.transforms.open_image(data).convert('RGB')
                if prep and re.search(prep[0], src):  # bring a source to another's size and encoding first (--prep)
                    im = crops_v1.bring_to(im, prep[1], prep[2])
                if args.face_crops:  # only files with a face, seen as a UTKFace-like crop of it (the pipeline's
                    # orientation: open_image leaves EXIF orientation unapplied, so turned faces are simply not found)
                    boxes = portraits.face_boxes(im)
                    if not boxes or max(min(w, h) for _, _, w, h in boxes) < portraits.PEOPLE * min(im.size):
                        continue
                    im = Image.open(io.BytesIO(portraits.utk_jpeg(im, boxes, 'semface|' + path))).convert('RGB')
                for v in range(args.first_view, args.views):
                    src_im = im
                    if v >= 1 and args.crop_views:
                        src_im = crop_view(im, 'semcrop%d|%s' % (v, path))
                    b, _ = S.transforms.transform(src_im, 'sem%d' % v, path, p_palette=args.palette)
                    imgs.append(S.to224(np.asarray(Image.open(io.BytesIO(b)).convert('RGB'))))
                    ys.append(1 if label == 'ai' else 0)
                    ss.append(srcs.index(src))
                    fs.append(i)
                    vs.append(v)
            except Exception as e:  # noqa: BLE001 - unreadable file: skipped, and said
                print('skip', path, e, flush=True)
        f = np.concatenate([feats(model, imgs[j:j + 32]) for j in range(0, len(imgs), 32)])
        tmp = name + '.tmp.npz'
        extra = dict(x=np.stack(imgs)) if args.save_inputs else {}
        np.savez(tmp, f=f, y=np.array(ys, np.uint8), s=np.array(ss, np.int16), i=np.array(fs, np.int32),
                 v=np.array(vs, np.uint8), **extra)
        os.replace(tmp, name)
        os.remove(name + '.lock')
        print('shard %d: %d views, %.0f s' % (k // SHARD, len(imgs), time.time() - t0), flush=True)
    print('train cache done %.0f s' % (time.time() - t0), flush=True)


def take_lock(path):
    """True when this process now holds the shard's lock. A lock is the PID of the process building the shard; one
    whose process is gone (killed: it could not remove it) is stale and taken over, so a rerun after a kill finishes
    the cache instead of silently skipping that shard."""
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            try:
                pid = int(open(path).read().strip() or 0)
            except (OSError, ValueError):
                pid = 0
            if pid and pid != os.getpid():
                try:
                    os.kill(pid, 0)
                    return False  # another live process is building it
                except ProcessLookupError:
                    pass
                except PermissionError:
                    return False
            print('stale lock taken over:', path, flush=True)
            try:
                os.remove(path)
            except FileNotFoundError:
                pass
            continue
        with os.fdopen(fd, 'w') as f:
            f.write(str(os.getpid()))
        return True
    return False


def do_eval(args):
    os.makedirs(S.CACHE, exist_ok=True)
    model = trunk()
    for name in args.sets.split(','):
        out = os.path.join(S.CACHE, name + '.npz')
        if os.path.exists(out):
            continue
        t0 = time.time()
        rows = S.eval_files(name)
        fs, keep, xs = [], [], []
        for j, (label, src, rel, path) in enumerate(rows):
            try:
                arr = S.eval_input(name, open(path, 'rb').read(), path)
            except Exception as e:  # noqa: BLE001
                print('skip', path, e, flush=True)
                continue
            xs.append(S.to224(arr))
            fs.append(feats(model, [xs[-1]]))
            keep.append(j)
        extra = dict(x=np.stack(xs)) if args.save_inputs else {}
        # each entry's path and source beside its position, so that rows can be matched after a source is withdrawn
        np.savez(out + '.tmp.npz', f=np.concatenate(fs), row=np.array(keep, np.int32), path=np.array([rows[j][2] for j in keep]),
                 source=np.array([rows[j][1] for j in keep]), **extra)
        os.replace(out + '.tmp.npz', out)
        print(name, len(keep), 'of', len(rows), 'files %.0f s' % (time.time() - t0), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('what', choices=['train', 'eval'])
    ap.add_argument('--total', type=int, default=6000)
    ap.add_argument('--beyond', type=int, default=0, help='leave out the files of the subsample of this many (same seed): '
                    'the files a larger --total adds to an existing cache, for SEM_EXTRA_CACHES')
    ap.add_argument('--views', type=int, default=2)
    ap.add_argument('--first-view', type=int, default=0,
                    help='cache views first-view .. views-1 only (a further view of the same files in a cache of its own, SEM_CACHE)')
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--only-sources', default='', help='regex on the source name: cache only those sources\' files')
    ap.add_argument('--palette', type=float, default=0.0,
                    help='share of views written as palette PNGs by transforms.py (both classes; default 0 = as before)')
    ap.add_argument('--permissive-only', action='store_true', help='only the files of sources data/licences.py calls '
                    'permissive')
    ap.add_argument('--crop-views', action='store_true', help='views after the first see a random crop of the scene')
    ap.add_argument('--data22', action='store_true', help='Data 2.2\'s training sources (real portraits) only')
    ap.add_argument('--prep', default='', help='REGEX:SIZE:Q: files of sources matching REGEX are first brought to at '
                    'most SIZE px (Lanczos) and JPEG quality Q, e.g. FFHQ\'s 1024-px q75 real faces to the 512-px q90 '
                    'JPEGs its StyleGAN counterpart was served as, so that size and encoding are not the signal')
    ap.add_argument('--data23', action='store_true', help='Data 2.3\'s training sources (StyleGAN / FFHQ faces) only')
    ap.add_argument('--data27', action='store_true', help='Data 2.7\'s training sources (Grok, Nano Banana) only')
    ap.add_argument('--face-crops', action='store_true',
                    help='only files with a face (portraits.py), each seen as a 200x200 crop of its largest face, '
                         'both classes (the AI counterpart of UTKFace\'s crops)')
    ap.add_argument('--part', default='0/1', help='k/n: this worker takes shards with index %% n == k')
    ap.add_argument('--sets', default=','.join(S.EVAL_SETS))
    ap.add_argument('--save-inputs', action='store_true',
                    help='also keep the 224x224 uint8 inputs (x) so a later cache cut lower in the trunk needs no decoding')
    args = ap.parse_args()
    torch.set_num_threads(1)
    (do_train if args.what == 'train' else do_eval)(args)


if __name__ == '__main__':
    main()
