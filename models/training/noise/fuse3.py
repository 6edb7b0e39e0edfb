# Fuses the noise branch with the shipped branches, file by file, as semantic/fuse.py does (logistic regression on
# logits, class-balanced, small L2, fitted on val_raw + val_tx only; validation scores leave-one-source-out, modern/
# scored by the fit on all of validation and never fitted on). The semantic branch's own logits (sem-ft4) are gone;
# the shipped 1.1.0 fused score (sem-ft4 + v1-ft-data2, fuse-ft4's fit; its validation scores are themselves LOSO)
# is read from models/veracity-detector/eval-results.json, whose file_scores are in the order of
# runs/v1-ft-data2/scores-<set>.json (checked here by label and source, file by file).
# Inputs (--inputs): noise = the noise run's logit; art = logit of v1-ft-data2's file score (top-3 of <= 32 tiles);
# f110 = logit of the 1.1.0 fused probability.
#   /usr/bin/python3 fuse3.py NOISE_RUN OUT --inputs noise,f110[,art]
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.environ.get('SEM_DIR', '/work/main/models/training/semantic'))
import sem_common as S  # noqa: E402
import card_v1  # noqa: E402
import fuse  # noqa: E402

SHIPPED_EVAL = os.environ.get('SHIPPED_EVAL', '/work/main/models/veracity-detector/eval-results.json')
KEYS = {'val_raw': 'validation by source', 'val_tx': 'validation by source (both classes through transforms.py)',
        'modern_raw': 'modern', 'modern_jpeg90': 'modern (both classes JPEG q90)'}
VAL = ('val_raw', 'val_tx')
MODERN = ('modern_raw', 'modern_jpeg90')


def f110(name):
    fs = json.load(open(SHIPPED_EVAL))['file_scores'][KEYS[name]]
    rows = S.shipped_rows(name)
    assert len(fs) == len(rows), (name, len(fs), len(rows))
    out = {}
    for a, r in zip(fs, rows):
        assert a['label'] == r['label'] and a['source'] == r['source'].replace('modern/', '', 1), (a, r['source'])
        out[r['path']] = float(fuse.logit(a['score']))
    return out


def table(noise_dir, name):
    noise = fuse.load(noise_dir, name)
    art = {r['path']: float(fuse.logit(card_v1.file_score(r, 3, 32))) for r in S.shipped_rows(name)}
    fz = f110(name)
    out = []
    for r in S.shipped_rows(name):
        p = r['path']
        if p in noise:
            out.append(dict(label=r['label'], source=r['source'], path=p, noise=noise[p]['logit'], art=art[p], f110=fz[p]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('noise')
    ap.add_argument('out')
    ap.add_argument('--inputs', default='noise,f110')
    a = ap.parse_args()
    cols = a.inputs.split(',')
    nd = a.noise if os.path.isabs(a.noise) else os.path.join(S.RUNS, a.noise)
    od = os.path.join(S.RUNS, a.out)
    os.makedirs(od, exist_ok=True)
    val = []
    for n in VAL:
        val += [dict(t, set=n) for t in table(nd, n)]
    X = np.array([[t[c] for c in cols] for t in val])
    y = np.array([1.0 if t['label'] == 'ai' else 0.0 for t in val])
    src = np.array([t['source'] for t in val])
    z = np.zeros(len(val))
    for s in sorted(set(src)):
        m = fuse.fit_lr(X[src != s], y[src != s])
        z[src == s] = fuse.predict(m, X[src == s])
    full = fuse.fit_lr(X, y)
    info = dict(noise=a.noise, inputs=cols, coef_standardised=full[2].tolist(), mean=full[0].tolist(), sd=full[1].tolist(),
                f110=SHIPPED_EVAL, art=S.SHIPPED_RUN, fitted_on='val_raw + val_tx (LOSO for their own scores)')
    res = {}
    for n in VAL + MODERN:
        if n in VAL:
            idx = [i for i, t in enumerate(val) if t['set'] == n]
            tl, zz = [val[i] for i in idx], z[idx]
        else:
            tl = table(nd, n)
            zz = fuse.predict(full, np.array([[t[c] for c in cols] for t in tl]))
        rows = [dict(label=t['label'], source=t['source'], path=t['path'], tiles=[float(1 / (1 + np.exp(-v)))], grid=1,
                     logit=float(v), **{c + '_logit': t[c] for c in ('noise', 'art', 'f110')}) for t, v in zip(tl, zz)]
        json.dump(dict(step=None, ckpt=None, set=n, tile=None, stride=None, heat=1, rows=rows, fusion=info),
                  open(os.path.join(od, 'scores-%s.json' % n), 'w'))
        yy = np.array([r['label'] == 'ai' for r in rows])
        res[n] = card_v1.auc(zz[yy], zz[~yy])
    json.dump(info, open(os.path.join(od, 'fusion.json'), 'w'), indent=1)
    print(json.dumps(info)[:400], json.dumps(res))


if __name__ == '__main__':
    main()
