# False accusations on portraits (README "Portraits"): for each fused run, at its own highAi threshold (card_v1's 3 %
# rule on the LOSO validation scores of SETS, default val + val21, as val21.py heldout), how many real photos of
# people are called AI, per evaluation set, against real photos without people, and how well AI portraits are told
# from real ones. Faces are found by ../portraits.py (run its `tag` first); Data 2.2's validation sources
# (valpt_*) are all photos of people. The photo guard is counted as the product reads it.
#   /usr/bin/python3 portraits_check.py FUSED[:SETS] ...
# Writes results/portraits-check.txt (the printed lines, appended).
import json
import os
import sys

import numpy as np

import sem_common as S
import card_v1
import fuse
import val21

sys.path.insert(0, S.TRAINING)
sys.path.insert(0, os.path.join(S.TRAINING, 'guard'))
import portraits  # noqa: E402
import flags  # noqa: E402
import sources as data_sources  # noqa: E402

SETS = ('val_raw', 'val_tx', 'val21_raw', 'val21_tx', 'valpt_raw', 'valpt_tx', 'valface_raw', 'd21train_raw',
        'modern_raw', 'modern_jpeg90')
POOLS = (('validation as is', ('val_raw', 'val21_raw', 'valpt_raw')), ('validation transformed', ('val_tx', 'val21_tx', 'valpt_tx')),
         ('held out (d21train + modern as is)', ('d21train_raw', 'modern_raw')))
say = val21.say


def fused_scores(fused, info, name):
    """{path: (label, source, fused logit)}: the run's own score file where fuse.py wrote one (LOSO for the sets it
    was fitted on), else the full fit applied to the branches' scores (as modern/ is scored)."""
    p = os.path.join(S.RUNS, fused, 'scores-%s.json' % name)
    if os.path.exists(p):
        return {r['path']: (r['label'], r['source'], r['logit']) for r in json.load(open(p))['rows']}
    t, z = fuse.apply_fit(info, name)
    return {x[2]: (x[0], x[1], float(v)) for x, v in zip(t, z)}


def guard(name):
    try:
        return flags.flagged(name)
    except Exception:  # noqa: BLE001 - the guard has not measured that set
        return set()


def main():
    tags = portraits.load()
    for spec in sys.argv[1:]:
        fused, _, sets = spec.partition(':')
        vs = tuple(sets.split(',')) if sets else val21.V21
        info = json.load(open(os.path.join(S.RUNS, fused, 'fusion.json')))
        rows = []  # (label, source, probability, path) as card_v1.scored gives them; the full fit where the run
        for n in vs:  # has no score file of that set (a set outside its fit)
            rows += [(l, src, 1 / (1 + np.exp(-z)), p) for p, (l, src, z) in fused_scores(fused, info, n).items()]
        thr = card_v1.thresholds(rows)['highAi']
        lg = float(np.log(thr / (1 - thr)))
        say('%s: highAi %.4f (logit %.3f) from %s' % (fused, thr, lg, '+'.join(vs)))
        say('    set            | real portraits at highAi | real, people | real, no face | AI portraits called '
            '| AUC AI vs real portraits')
        counted = {}
        for name in SETS:
            sc = fused_scores(fused, info, name)
            if not sc:
                continue
            fl = guard(name)
            cnt = counted[name] = {}
            for path, (lab, src, z) in sc.items():
                k = 'portrait' if src.startswith('v1/') and src[3:] in data_sources.DATA22 else \
                    portraits.kind(tags.get(path))
                cnt.setdefault((lab, k), []).append((z, z >= lg and path not in fl))
            def frac(key):
                v = cnt.get(key, [])
                return '%d/%d' % (sum(h for _, h in v), len(v)) if v else '-'
            aip = cnt.get(('ai', 'portrait'), [])
            rep = cnt.get(('real', 'portrait'), [])
            auc = card_v1.auc([z for z, _ in aip], [z for z, _ in rep]) if aip and rep else float('nan')
            say('    %-14s | %-23s | %-12s | %-13s | %-19s | %.3f' % (
                name, frac(('real', 'portrait')), frac(('real', 'people')), frac(('real', 'none')),
                '%s (%.0f %%)' % (frac(('ai', 'portrait')), 100 * np.mean([h for _, h in aip])) if aip else '-', auc))
        for title, names in POOLS:
            if not all(n in counted for n in names):
                continue
            cnt = {}
            for n in names:
                for k, v in counted[n].items():
                    cnt.setdefault(k, []).extend(v)
            rep, aip = cnt.get(('real', 'portrait'), []), cnt.get(('ai', 'portrait'), [])
            other = [h for k, v in cnt.items() if k[0] == 'real' and k[1] != 'portrait' for _, h in v]
            allai = [h for k, v in cnt.items() if k[0] == 'ai' for _, h in v]
            say('    pooled, %s: real portraits at highAi %d/%d (%.1f %%), other real %d/%d (%.1f %%); AI portraits '
                'called %.0f %% of %d, all AI %.0f %%; AUC AI vs real portraits %.3f' % (
                    title, sum(h for _, h in rep), len(rep), 100 * np.mean([h for _, h in rep]), sum(other), len(other),
                    100 * np.mean(other), 100 * np.mean([h for _, h in aip]), len(aip), 100 * np.mean(allai),
                    card_v1.auc([z for z, _ in aip], [z for z, _ in rep])))
    with open(os.path.join(S.HERE, 'results', 'portraits-check.txt'), 'a') as f:
        f.write('\n'.join(val21.OUT) + '\n')


if __name__ == '__main__':
    main()
