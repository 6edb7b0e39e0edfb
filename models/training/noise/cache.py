# Caches the noise-residual features (features.py) of the training subsample and of the eval sets, in shards of
# SHARD files (resumable: a finished shard is never redone). Files and views are the semantic branch's:
#   train: sem_common.train_subsample(TOTAL, SEED) (HEIC skipped), in a seeded random order (so a cut-short cache is
#          a random subset); two views per file: 'raw' (the file as is, decoded as eval_v1.decode: the clean original)
#          and 'tx' (transforms.transform(open_image(data), 'sem0', path): the same draw as the semantic cache's view 0).
#   eval:  sem_common.eval_files(name) / eval_input(name, data, abspath) for name in val_raw, val_tx, modern_raw,
#          modern_jpeg90: exactly the shipped model's score files; val_q70 / val_half: those of their files that
#          val_raw also holds (card_v1.flips compares only those).
#   /usr/bin/python3 cache.py val_raw val_tx modern_raw modern_jpeg90 train val_q70 val_half [--total 3000]
import argparse
import io
import json
import os
import random
import sys
import time

import numpy as np
from PIL import Image

sys.path.insert(0, os.environ.get('SEM_DIR', '/work/main/models/training/semantic'))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sem_common as S  # noqa: E402
import features as F  # noqa: E402

CACHE = os.environ.get('NOISE_CACHE', os.path.join(S.MAIN, '.cache', 'noise'))
SHARD = 200


def fmt_of(data):
    try:
        return Image.open(io.BytesIO(data)).format
    except Exception:
        return None


def train_items(total, seed):
    files = S.train_subsample(total, seed)
    random.Random('noise-order|%d' % seed).shuffle(files)
    return files


def work_train(item):
    label, source, path = item
    data = open(path, 'rb').read()
    out = []
    t = time.time()
    arr = S.decode(data)
    out.append(dict(view='raw', arr=arr))
    b, facts = S.transforms.transform(S.transforms.open_image(data).convert('RGB'), 'sem0', path)
    out.append(dict(view='tx', arr=np.asarray(Image.open(io.BytesIO(b)).convert('RGB')), facts=facts))
    rows = []
    for o in out:
        t0 = time.time()
        x = F.image_features(o['arr'], path + '|' + o['view'])
        rows.append((x, dict(label=label, source=source, path=path, view=o['view'], h=int(o['arr'].shape[0]),
                             w=int(o['arr'].shape[1]), fmt=fmt_of(data) if o['view'] == 'raw' else
                             o['facts'].get('encoder'), t_feat=round(time.time() - t0, 4))))
    rows[0][1]['t_file'] = round(time.time() - t, 4)
    return rows


def work_eval(name, item):
    label, source, rel, absp = item
    data = open(absp, 'rb').read()
    t = time.time()
    arr = S.eval_input(name, data, absp)
    t0 = time.time()
    x = F.image_features(arr, absp + '|' + name)
    return [(x, dict(label=label, source=source, path=rel, view=name, h=int(arr.shape[0]), w=int(arr.shape[1]),
                     fmt=fmt_of(data), t_feat=round(time.time() - t0, 4), t_file=round(time.time() - t, 4)))]


def run_set(name, args):
    d = os.path.join(CACHE, 'train-%d-%d' % (args.total, args.seed) if name == 'train' else name)
    os.makedirs(d, exist_ok=True)
    items = train_items(args.total, args.seed) if name == 'train' else S.eval_files(name)
    if name in ('val_q70', 'val_half'):  # flips are counted on the files val_raw also scores (card_v1.flips)
        keep = {r[2] for r in S.eval_files('val_raw')}
        items = [r for r in items if r[2] in keep]
    json.dump(dict(name=name, n=len(items), features=F.FEATURES, crop=F.CROP, n_crops=F.N_CROPS, shard=SHARD),
              open(os.path.join(d, 'meta.json'), 'w'))
    for s0 in range(0, len(items), SHARD):
        fn = os.path.join(d, 'shard-%04d.npz' % (s0 // SHARD))
        if os.path.exists(fn):
            continue
        t = time.time()
        X, M = [], []
        for it in items[s0:s0 + SHARD]:
            try:
                rows = work_train(it) if name == 'train' else work_eval(name, it)
            except Exception as e:  # noqa: BLE001
                print('skip', it, repr(e)[:200], flush=True)
                continue
            for x, m in rows:
                X.append(x)
                M.append(m)
        np.savez(fn + '.tmp.npz', X=np.array(X, np.float32), meta=np.array(json.dumps(M)))
        os.replace(fn + '.tmp.npz', fn)
        print('%s shard %d: %d rows in %.0f s' % (name, s0 // SHARD, len(X), time.time() - t), flush=True)


def load(name, total=3000, seed=0):
    d = os.path.join(CACHE, 'train-%d-%d' % (total, seed) if name == 'train' else name)
    X, M = [], []
    for fn in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if fn.startswith('shard-') and fn.endswith('.npz') and '.tmp' not in fn:
            z = np.load(os.path.join(d, fn))
            X.append(z['X'])
            M += json.loads(str(z['meta']))
    return (np.concatenate(X) if X else np.zeros((0, len(F.FEATURES)), np.float32)), M


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('sets', nargs='+')
    ap.add_argument('--total', type=int, default=3000)
    ap.add_argument('--seed', type=int, default=0)
    args = ap.parse_args()
    for name in args.sets:
        run_set(name, args)


if __name__ == '__main__':
    main()
