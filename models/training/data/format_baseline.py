# The format-only baseline of Data v1: how well file type, byte size, dimensions, JPEG quality, chroma subsampling
# and metadata presence alone tell AI from authentic on the by-source validation split, for the raw files and after
# transforms.py. A pixel model is only worth shipping if it beats the raw figure by a wide margin; the transformed
# figure must sit near chance, which shows the pipeline removes the shortcut. Writes format-baseline.json.
#
#   OMP_NUM_THREADS=1 nice -n 19 /usr/bin/python3 format_baseline.py [--per-source-train 150 --per-source-val 300]
import argparse
import collections
import csv
import glob
import json
import math
import os
import random
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import imgmeta  # noqa: E402
import restore  # noqa: E402
import transforms  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FORMATS = ['jpeg', 'png', 'webp-lossy', 'webp-lossless']
FEATURES = (['fmt_' + f for f in FORMATS] + ['fmt_other', 'log_bytes', 'log_w', 'log_h', 'log_pixels', 'log_bpp',
            'log_aspect', 'square', 'mult64', 'mult8', 'jpeg_q', 'has_q', 'sub_420', 'sub_422', 'sub_444', 'exif',
            'make', 'icc', 'xmp', 'text_chunks', 'progressive'])


def fnum(x, default=0.0):
    try:
        return float(x)
    except (TypeError, ValueError):
        return default


def features(r):
    fmt = r.get('format', '')
    w, h, b = fnum(r['width'], 1), fnum(r['height'], 1), fnum(r['bytes'], 1)
    q = fnum(r.get('jpeg_quality'), -1)
    sub = str(r.get('subsampling', ''))
    v = [float(fmt == f) for f in FORMATS] + [float(fmt not in FORMATS)]
    v += [math.log(b), math.log(w), math.log(h), math.log(w * h), math.log(b / (w * h)), math.log(w / h),
          float(w == h), float(w % 64 == 0 and h % 64 == 0), float(w % 8 == 0 and h % 8 == 0),
          q / 100.0 if q >= 0 else 0.0, float(q >= 0), float(sub == '420'), float(sub == '422'), float(sub == '444'),
          fnum(r.get('exif')), float(bool(r.get('make'))), fnum(r.get('icc')), fnum(r.get('xmp')),
          fnum(r.get('text_chunks')), fnum(r.get('progressive'))]
    return v


def auc(y, s):
    y, s = np.asarray(y), np.asarray(s, dtype=np.float64)
    order = np.argsort(s, kind='mergesort')
    ranks = np.empty(len(s))
    ss = s[order]
    i = 0
    while i < len(s):  # average ranks of ties
        j = i
        while j + 1 < len(s) and ss[j + 1] == ss[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1
        i = j + 1
    n1, n0 = int(y.sum()), int(len(y) - y.sum())
    if n1 == 0 or n0 == 0:
        return float('nan')
    return float((ranks[y == 1].sum() - n1 * (n1 + 1) / 2.0) / (n1 * n0))


def boot_ci(y, s, n=1000, seed=0):
    rng = np.random.default_rng(seed)
    y, s = np.asarray(y), np.asarray(s)
    pos, neg = np.where(y == 1)[0], np.where(y == 0)[0]
    vals = []
    for _ in range(n):
        idx = np.concatenate([rng.choice(pos, len(pos)), rng.choice(neg, len(neg))])
        vals.append(auc(y[idx], s[idx]))
    return [round(float(np.percentile(vals, 2.5)), 3), round(float(np.percentile(vals, 97.5)), 3)]


class Logistic:
    """L2-regularised logistic regression, class-balanced, standardised inputs, Newton steps."""

    def fit(self, X, y, l2=1.0, iters=50):
        self.mu, self.sd = X.mean(0), X.std(0) + 1e-6
        Z = np.hstack([(X - self.mu) / self.sd, np.ones((len(X), 1))])
        w = np.zeros(Z.shape[1])
        cw = np.where(y == 1, 0.5 / max(1, y.sum()), 0.5 / max(1, (1 - y).sum())) * len(y)
        for _ in range(iters):
            p = 1 / (1 + np.exp(-np.clip(Z @ w, -30, 30)))
            g = Z.T @ (cw * (p - y)) + l2 * np.r_[w[:-1], 0]
            reg = l2 * np.diag(np.r_[np.ones(len(w) - 1), 0]) + 1e-6 * np.eye(len(w))
            H = (Z * (cw * p * (1 - p))[:, None]).T @ Z + reg
            step = np.linalg.solve(H, g)
            w -= step
            if np.abs(step).max() < 1e-7:
                break
        self.w = w
        return self

    def score(self, X):
        return np.hstack([(X - self.mu) / self.sd, np.ones((len(X), 1))]) @ self.w


class Tree:
    """A small class-balanced CART (Gini), depth <= 4, leaves of at least 20 files."""

    def fit(self, X, y, depth=4, min_leaf=20):
        cw = np.where(y == 1, 0.5 / max(1, y.sum()), 0.5 / max(1, (1 - y).sum()))
        self.root = self._grow(X, y, cw, depth, min_leaf)
        return self

    def _grow(self, X, y, w, depth, min_leaf):
        p = float((w * y).sum() / w.sum())
        if depth == 0 or len(y) < 2 * min_leaf or p in (0.0, 1.0):
            return p
        best = None
        for j in range(X.shape[1]):
            xs = np.unique(X[:, j])
            if len(xs) < 2:
                continue
            cands = (xs[:-1] + xs[1:]) / 2
            if len(cands) > 32:
                cands = np.quantile(X[:, j], np.linspace(0.03, 0.97, 32))
            for t in cands:
                left = X[:, j] <= t
                nl = left.sum()
                if nl < min_leaf or len(y) - nl < min_leaf:
                    continue
                g = 0.0
                for m in (left, ~left):
                    ww = w[m].sum()
                    q = (w[m] * y[m]).sum() / ww
                    g += ww * 2 * q * (1 - q)
                if best is None or g < best[0]:
                    best = (g, j, t, left)
        if best is None:
            return p
        _, j, t, left = best
        return (j, t, self._grow(X[left], y[left], w[left], depth - 1, min_leaf),
                self._grow(X[~left], y[~left], w[~left], depth - 1, min_leaf))

    def score(self, X):
        out = np.empty(len(X))
        for i, x in enumerate(X):
            n = self.root
            while isinstance(n, tuple):
                n = n[2] if x[n[0]] <= n[1] else n[3]
            out[i] = n
        return out


def load_rows():
    rows = []
    for tsv in sorted(glob.glob(os.path.join(HERE, 'sources', '*.tsv'))):
        name = os.path.basename(tsv)[:-4]
        for r in csv.DictReader(open(tsv, newline=''), delimiter='\t'):
            r['source'] = name
            rows.append(r)
    return rows


def modern_rows(seed=None):
    """../shared/datasets/modern/ files as rows (evaluation only): their own bytes, or transformed ones."""
    d = os.environ.get('VERACITY_MODERN', os.path.abspath(os.path.join(HERE, '..', '..', '..', '..', 'shared',
                                                                        'datasets', 'modern')))
    out = []
    for m in csv.DictReader(open(os.path.join(d, 'MANIFEST.tsv'), newline=''), delimiter='\t'):
        data = open(os.path.join(d, m['local_file']), 'rb').read()
        if seed is not None:
            data, _ = transforms.transform(transforms.open_image(data), seed, m['local_file'])
        info = imgmeta.describe(data, pixels=False)
        out.append(dict(info, **{'class': m['label'], 'source': 'modern/' + m['source']}))
    return out


def evaluate(train, val, label, extra=None):
    Xtr = np.array([features(r) for r in train])
    ytr = np.array([1.0 if r['class'] == 'ai' else 0.0 for r in train])
    Xva = np.array([features(r) for r in val])
    yva = np.array([1.0 if r['class'] == 'ai' else 0.0 for r in val])
    out = dict(n_train=dict(ai=int(ytr.sum()), real=int(len(ytr) - ytr.sum())),
               n_val=dict(ai=int(yva.sum()), real=int(len(yva) - yva.sum())))
    for name, model in (('logistic', Logistic().fit(Xtr, ytr)), ('tree_depth4', Tree().fit(Xtr, ytr))):
        if extra:  # a second evaluation set (modern/), scored by the same fitted model
            Xe = np.array([features(r) for r in extra])
            ye = np.array([1.0 if r['class'] == 'ai' else 0.0 for r in extra])
            se = model.score(Xe)
            out.setdefault('modern', {})[name] = dict(auc=round(auc(ye, se), 3), auc_ci95=boot_ci(ye, se),
                                                      n=dict(ai=int(ye.sum()), real=int(len(ye) - ye.sum())))
        s = model.score(Xva)
        res = dict(val_auc=round(auc(yva, s), 3), val_auc_ci95=boot_ci(yva, s),
                   train_auc=round(auc(ytr, model.score(Xtr)), 3))
        per = {}
        real_idx = [i for i, r in enumerate(val) if r['class'] == 'real']
        for src in sorted({r['source'] for r in val if r['class'] == 'ai'}):
            idx = [i for i, r in enumerate(val) if r['source'] == src] + real_idx
            per[src] = round(auc(yva[idx], s[idx]), 3)
        res['val_auc_per_ai_source_vs_all_val_real'] = per
        if name == 'logistic':
            res['weights'] = {f: round(float(w), 3) for f, w in zip(FEATURES + ['bias'], model.w)}
        out[name] = res
    print(label, json.dumps({k: (v['val_auc'], v['val_auc_ci95']) for k, v in out.items() if isinstance(v, dict)
                             and 'val_auc' in v}), 'modern/', json.dumps(out.get('modern')), flush=True)
    return out


def transformed_rows(rows, images, seed):
    out = []
    t0 = time.time()
    for k, r in enumerate(rows):
        p = os.path.join(images, r['class'], r['source'], restore.local_name(r, r['source']))
        data = open(p, 'rb').read()
        b, facts = transforms.transform(transforms.open_image(data), seed, r['blob'])
        info = imgmeta.describe(b, pixels=False)
        out.append(dict(info, **{'class': r['class'], 'source': r['source'], 'blob': r['blob'],
                                 'subsampling': info.get('subsampling', '')}))
        if (k + 1) % 200 == 0:
            print('  transformed %d/%d (%.0f s)' % (k + 1, len(rows), time.time() - t0), flush=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--images', default=restore.DEFAULT_OUT)
    ap.add_argument('--per-source-train', type=int, default=150)
    ap.add_argument('--per-source-val', type=int, default=300)
    ap.add_argument('--seed', type=int, default=1)
    args = ap.parse_args()
    t0 = time.time()
    rows = load_rows()
    train = [r for r in rows if r['split'] == 'train']
    val = [r for r in rows if r['split'] == 'val']
    res = dict(features=FEATURES, splits=dict(train=sorted({r['source'] for r in train}),
                                              val=sorted({r['source'] for r in val})))
    res['raw_all'] = evaluate(train, val, 'raw, all files', extra=modern_rows())

    # the transformed figure is computed on a seeded per-source sample (one CPU thread); so is a raw figure on the
    # very same sample, so the two are comparable
    rng = random.Random(args.seed)

    def sample(rs, cap):
        by = collections.defaultdict(list)
        for r in rs:
            by[r['source']].append(r)
        out = []
        for s in sorted(by):
            xs = sorted(by[s], key=lambda r: r['blob'])
            rng.shuffle(xs)
            out += xs[:cap]
        return out
    tr_s, va_s = sample(train, args.per_source_train), sample(val, args.per_source_val)
    res['raw_sample'] = evaluate(tr_s, va_s, 'raw, sample')
    tr_t = transformed_rows(tr_s, args.images, args.seed)
    va_t = transformed_rows(va_s, args.images, args.seed + 1000)
    res['transformed_sample'] = evaluate(tr_t, va_t, 'transformed, sample', extra=modern_rows(args.seed + 2000))
    res['sample'] = dict(per_source_train=args.per_source_train, per_source_val=args.per_source_val, seed=args.seed)
    res['seconds'] = round(time.time() - t0, 1)
    json.dump(res, open(os.path.join(HERE, 'format-baseline.json'), 'w'), indent=1)
    print('wrote format-baseline.json in %.0f s' % res['seconds'])


if __name__ == '__main__':
    main()
