# A rerun of a recorded step against what it recorded (seventeenth session: reproduce.sh step 8, inc-m10 rebuilt from
# an empty cache): per set, each run's AUC alone, the paired bootstrap of B - A (1,000 resamples within class, the
# same files), and how closely the two logits agree file by file.
#   /usr/bin/python3 rerun_check.py RUN_A RUN_B [SETS]      (SETS default val_raw,val_tx,modern_raw,modern_jpeg90)
# Writes results/rerun-<RUN_B>.txt (the printed lines) as well.
import json
import os
import sys

import numpy as np

import sem_common as S
import card_v1


def logits(run, name):
    rows = json.load(open(os.path.join(S.RUNS, run, 'scores-%s.json' % name)))['rows']
    return {r['path']: (r['label'], r['logit']) for r in rows}


def auc(z, y):
    return card_v1.auc(z[y == 1], z[y == 0])


def main():
    a, b = sys.argv[1], sys.argv[2]
    sets = (sys.argv[3] if len(sys.argv) > 3 else 'val_raw,val_tx,modern_raw,modern_jpeg90').split(',')
    out = []
    say = lambda line: (print(line, flush=True), out.append(line))  # noqa: E731
    say('%s (A) against %s (B): AUC alone, paired B - A (95 %% interval), logits file by file' % (a, b))
    rng = np.random.default_rng(0)
    for name in sets:
        la, lb = logits(a, name), logits(b, name)
        paths = sorted(set(la) & set(lb))
        y = np.array([la[p][0] == 'ai' for p in paths], int)
        za = np.array([la[p][1] for p in paths])
        zb = np.array([lb[p][1] for p in paths])
        pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
        lo = hi = float('nan')
        if len(pos) and len(neg):  # a set of one class (valpt: real portraits only) has no AUC; its logits still compare
            d = []
            for _ in range(1000):
                i = np.concatenate([rng.choice(pos, len(pos)), rng.choice(neg, len(neg))])
                d.append(auc(zb[i], y[i]) - auc(za[i], y[i]))
            lo, hi = np.percentile(d, [2.5, 97.5])
        r = np.corrcoef(za, zb)[0, 1]
        flips = int(np.sum((za > 0) != (zb > 0)))
        dz = np.abs(zb - za)
        say('  %-14s %4d files (%d only in A, %d only in B)  A %.3f  B %.3f  B - A %+.3f (%+.3f..%+.3f)  r %.4f  '
            '|logit B - A| median %.3f max %.3f  sign differs on %d' % (
                name, len(paths), len(set(la) - set(lb)), len(set(lb) - set(la)), auc(za, y), auc(zb, y),
                auc(zb, y) - auc(za, y), lo, hi, r, np.median(dz), dz.max(), flips))
    os.makedirs(os.path.join(S.HERE, 'results'), exist_ok=True)
    with open(os.path.join(S.HERE, 'results', 'rerun-%s.txt' % b), 'w') as f:
        f.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
