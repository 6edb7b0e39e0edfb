# Paired bootstrap of the AUC difference between two runs on the same files (resampling files within each class),
# e.g. a fused run vs the shipped model: /usr/bin/python3 paired.py RUN_A RUN_B [SET ...]
import json
import os
import sys

import numpy as np

import sem_common as S
import card_v1  # noqa: E402 (sem_common puts models/training on the path)


def scores(run, name):
    rd = run if os.path.isabs(run) else os.path.join(S.RUNS, run)
    d = json.load(open(os.path.join(rd, 'scores-%s.json' % name)))
    return {p: (l, s) for l, _, s, p in card_v1.scored(d, 3, 32)}


def main():
    a, b = sys.argv[1], sys.argv[2]
    out = {}
    for name in sys.argv[3:] or ['val_raw', 'val_tx', 'modern_raw', 'modern_jpeg90']:
        A, B = scores(a, name), scores(b, name)
        paths = sorted(set(A) & set(B))
        lab = np.array([A[p][0] == 'ai' for p in paths])
        sa, sb = np.array([A[p][1] for p in paths]), np.array([B[p][1] for p in paths])
        pos, neg = np.where(lab)[0], np.where(~lab)[0]
        r = np.random.default_rng(0)
        d0 = card_v1.auc(sa[pos], sa[neg]) - card_v1.auc(sb[pos], sb[neg])
        ds = []
        for _ in range(1000):
            p, n = r.choice(pos, len(pos)), r.choice(neg, len(neg))
            ds.append(card_v1.auc(sa[p], sa[n]) - card_v1.auc(sb[p], sb[n]))
        ds = np.array(ds)
        out[name] = dict(n=len(paths), diff=float(d0), ci=[float(np.percentile(ds, 2.5)), float(np.percentile(ds, 97.5))],
                         p_le_0=float(np.mean(ds <= 0)))
        print('%-14s n=%d AUC(%s) - AUC(%s) = %+.3f (95 %% %+.3f..%+.3f), share of resamples <= 0: %.3f' % (
            name, len(paths), os.path.basename(a), os.path.basename(b), d0, out[name]['ci'][0], out[name]['ci'][1],
            out[name]['p_le_0']))
    return out


if __name__ == '__main__':
    main()
