# Fits the "not a photograph" guard on measure.py's features and measures it; writes guard/results.json and prints
# the constants for src/analysis/photo-guard.ts.
#   fitted on : 'train' (photos of both classes, through transforms.py) as 0, and the non-photographs of the fit half
#               (docs, charts and icons whose name hash is even; each as rendered and through transforms.py) as 1
#   threshold : the highest guard score reached by no more than --val-share of validation's real photos (val_raw and
#               val_tx together): validation chooses it, never modern/
#   measured  : the held-out non-photographs (the odd half, and every rendered PDF page), validation and modern/ per
#               class; with the detector's fused scores (runs/<fused>), the share of real / AI at highAi before and after
#   /usr/bin/python3 fit.py [--fused f3-inc-m10] [--val-share 0.03]
import argparse
import hashlib
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'semantic'))
import sem_common as S  # noqa: E402
import features as F  # noqa: E402
from measure import OUT as FEAT  # noqa: E402  (measure.py writes the features there)


def load(name):
    return json.load(open(os.path.join(FEAT, 'features-%s.json' % name)))


def fit_half(path):
    return int(hashlib.sha1(os.path.basename(path).encode()).hexdigest()[:8], 16) % 2 == 0


def design(rows):
    return np.stack([F.vector(r['f']) for r in rows]) if rows else np.zeros((0, len(F.NAMES)))


def logistic(X, y, l2=1e-3, iters=50):
    """Newton's method on the mean log-loss with a small L2 penalty (not on the intercept); X standardised first."""
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = np.hstack([(X - mu) / sd, np.ones((len(X), 1))])
    w = np.zeros(Z.shape[1])
    # class-balanced weights
    sw = np.where(y == 1, 0.5 / max(1, y.sum()), 0.5 / max(1, (1 - y).sum()))
    for _ in range(iters):
        p = 1 / (1 + np.exp(-Z @ w))
        g = Z.T @ (sw * (p - y)) + l2 * np.r_[w[:-1], 0]
        Hm = (Z * (sw * p * (1 - p))[:, None]).T @ Z + l2 * np.diag(np.r_[np.ones(len(w) - 1), 0])
        w -= np.linalg.solve(Hm, g)
    coef = w[:-1] / sd
    return coef, float(w[-1] - (coef * mu).sum())


def score(rows, coef, b):
    return design(rows) @ coef + b if rows else np.zeros(0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--fused', default='f3-inc-m10')
    ap.add_argument('--val-share', type=float, default=0.03)
    ap.add_argument('--high-ai', type=float, default=None, help="the detector's highAi (default: the shipped manifest's)")
    a = ap.parse_args()
    man = json.load(open(os.path.join(S.TRAINING, '..', 'veracity-detector', 'manifest.json')))
    high_ai = a.high_ai if a.high_ai is not None else man['thresholds']['highAi']
    photos = load('train')
    nonphoto = load('nonphoto')
    held_groups = {'pdfs', 'pdfs_tx'}
    nfit = [r for r in nonphoto if r['source'] not in held_groups and fit_half(r['path'])]
    nheld = [r for r in nonphoto if r not in nfit]
    X = np.vstack([design(photos), design(nfit)])
    y = np.r_[np.zeros(len(photos)), np.ones(len(nfit))]
    coef, b = logistic(X, y)
    val = load('val_raw') + load('val_tx')
    vreal = np.sort(score([r for r in val if r['label'] == 'real'], coef, b))
    k = int(np.floor(a.val_share * len(vreal)))
    thr = float(vreal[len(vreal) - k - 1]) + 1e-6 if k < len(vreal) else float(vreal[0])
    res = dict(features=list(F.NAMES), coef=[float(c) for c in coef], intercept=b, threshold=thr, val_share=a.val_share,
               fit=dict(photos=len(photos), nonphotos=len(nfit)), flagged={})

    def share(rows):
        s = score(rows, coef, b)
        return dict(n=len(rows), flagged=round(float((s > thr).mean()), 4) if len(rows) else None)

    groups = sorted({r['source'] for r in nheld})
    res['flagged']['nonphoto_held'] = {g: share([r for r in nheld if r['source'] == g]) for g in groups}
    res['flagged']['nonphoto_held_all'] = share(nheld)
    res['flagged']['nonphoto_fit'] = share(nfit)
    res['flagged']['train_photos'] = {lab: share([r for r in photos if r['label'] == lab]) for lab in ('real', 'ai')}
    for name in ('val_raw', 'val_tx', 'modern_raw', 'modern_jpeg90'):
        rows = load(name)
        res['flagged'][name] = {lab: share([r for r in rows if r['label'] == lab]) for lab in ('real', 'ai')}
        fp = os.path.join(S.RUNS, a.fused, 'scores-%s.json' % name)
        if not os.path.exists(fp):
            continue
        fused = {r['path']: r['tiles'][0] for r in json.load(open(fp))['rows']}
        g = {r['path']: bool(sc > thr) for r, sc in zip(rows, score(rows, coef, b))}
        calls = {}
        for lab in ('real', 'ai'):
            ps = [p for p, r in ((r['path'], r) for r in rows) if r['label'] == lab and p in fused]
            hi = [p for p in ps if fused[p] >= high_ai]
            calls[lab] = dict(n=len(ps), high_ai=round(len(hi) / len(ps), 4),
                              high_ai_guarded=round(sum(1 for p in hi if not g[p]) / len(ps), 4),
                              high_ai_files_guarded=[os.path.basename(p) for p in hi if g[p]] if name.startswith('modern') or lab == 'real' else None)
        res.setdefault('high_ai', {})[name] = calls
    sp = os.path.join(FEAT, 'features-shots.json')
    if os.path.exists(sp):  # screenshots of photographs of both classes, by the share of the window the picture covers
        shots = json.load(open(sp))
        res['flagged']['shots'] = {'%s covers %s %%' % (lab, c): share([r for r in shots if r['label'] == lab and r['source'].endswith('@%s' % c)])
                                   for c in ('30', '50', '70', '90') for lab in ('real', 'ai')}
    res['high_ai_threshold'] = high_ai
    json.dump(res, open(os.path.join(HERE, 'results.json'), 'w'), indent=1)
    print(json.dumps({k: v for k, v in res.items() if k != 'high_ai'}, indent=1))
    for name, c in res.get('high_ai', {}).items():
        print(name, {lab: (v['high_ai'], v['high_ai_guarded']) for lab, v in c.items()})


if __name__ == '__main__':
    main()
