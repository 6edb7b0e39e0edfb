# The probe's check (README, tenth session): each TAEF2 feature alone, and 1.5.0's fused logit plus it (logistic
# regression, leave-one-source-out) against the fused logit alone, paired bootstrap (500 draws), as is and transformed.
import json, os, sys, numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuse import fit_lr, predict
d = json.load(open(sys.argv[1]))
base = {}
for n in d:
    base[n] = {r['path']: r for r in json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'runs', 'f22-f3', 'scores-%s.json') % n))['rows']}
def auc(s, y):
    s = np.asarray(s); y = np.asarray(y); o = np.argsort(s); r = np.empty(len(s)); r[o] = np.arange(1, len(s) + 1)
    # ties: average ranks
    from scipy.stats import rankdata
    r = rankdata(s); n1 = y.sum(); n0 = len(y) - n1
    return (r[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0)
def feats(r):
    l1 = np.array(r['l1'])+1e-5; hp = np.array(r['hp'])+1e-5; ge = np.array(r['ge'])+1e-5
    return {'l1': np.log(l1.mean()), 'hp': np.log(hp.mean()), 'ratio': np.log(hp.mean() / ge.mean()),
            'ratio_min': np.log((hp / ge).min()), 'ratio_max': np.log((hp / ge).max()), 'ge': np.log(ge.mean())}
names = ['l1', 'hp', 'ratio', 'ratio_min', 'ratio_max', 'ge']
groups = {'asis': [n for n in d if n.endswith('_raw')], 'tx': [n for n in d if n.endswith('_tx')]}
rng = np.random.default_rng(0)
for g, sets in groups.items():
    rows = [(r, base[n][r['path']]) for n in sets for r in d[n] if r['path'] in base[n]]
    if not rows: continue
    y = np.array([r['label'] == 'ai' for r, _ in rows], int)
    src = np.array([r['source'] for r, _ in rows])
    F = {k: np.array([feats(r)[k] for r, _ in rows]) for k in names}
    fl = np.array([b['logit'] for _, b in rows])
    print('==', g, sets, len(rows), 'ai', y.sum())
    print('  1.5.0 fused AUC %.3f' % auc(fl, y))
    def loso(X):
        out = np.zeros(len(y))
        for s in np.unique(src):
            m = src == s
            out[m] = predict(fit_lr(X[~m], y[~m]), X[m])
        return out
    b0 = loso(fl[:, None])
    print('  LOSO base %.3f' % auc(b0, y))
    for k in names:
        a = auc(F[k], y)
        f = loso(np.c_[fl, F[k]])
        diffs = []
        for _ in range(500):
            i = rng.integers(0, len(y), len(y))
            if y[i].min() == y[i].max(): continue
            diffs.append(auc(f[i], y[i]) - auc(b0[i], y[i]))
        lo, hi = np.percentile(diffs, [2.5, 97.5])
        print('  %-10s alone %.3f (%.3f)  fused %.3f  diff %+.4f [%+.4f, %+.4f]' % (k, a, 1 - a, auc(f, y), auc(f, y) - auc(b0, y), lo, hi))
