# Data 2.1's checks (README "Data 2.1, palette views ..."): runs compared on the enlarged validation (val_* + val21_*
# pooled), paired, and on the held-out Data 2.1 training sources (d21train_raw) at each fusion's own thresholds.
#   /usr/bin/python3 val21.py table RUN [RUN ...]        AUC on val+val21 (as is / transformed), modern/, GPT-4o/Sora
#   /usr/bin/python3 val21.py paired RUN_A RUN_B          paired bootstrap of B - A (1,000 resamples within class)
#   /usr/bin/python3 val21.py heldout FUSED[:SETS] ...    thresholds from SETS (default val+val21, LOSO fused scores,
#       card_v1's 3 % rule; the photo guard counted as the product reads it), then who is at highAi on d21train_raw
#       (the fusion's full fit, as modern/ is scored) and on modern/
# Writes results/val21-<command>.txt (the printed lines) as well.
import json
import os
import sys

import numpy as np

import sem_common as S
import card_v1
import fuse

sys.path.insert(0, os.path.join(S.TRAINING, 'guard'))
import flags  # noqa: E402

V21 = ('val_raw', 'val21_raw', 'val_tx', 'val21_tx')
OUT = []


def say(line):
    print(line, flush=True)
    OUT.append(line)


def rows(run, name):
    p = os.path.join(S.RUNS, run, 'scores-%s.json' % name)
    return json.load(open(p))['rows'] if os.path.exists(p) else []


def logit_of(r):
    if 'logit' in r:
        return r['logit']
    p = min(max(card_v1.file_score(r, 3, 32), 1e-6), 1 - 1e-6)
    return float(np.log(p / (1 - p)))


def auc_of(rs):
    ai = [logit_of(r) for r in rs if r['label'] == 'ai']
    re = [logit_of(r) for r in rs if r['label'] == 'real']
    return card_v1.auc(ai, re)


def table(runs):
    say('run | val+val21 as is | val+val21 transformed | modern as is | modern q90 | GPT-4o/Sora as is | q90')
    for run in runs:
        cells = [auc_of(rows(run, 'val_raw') + rows(run, 'val21_raw')), auc_of(rows(run, 'val_tx') + rows(run, 'val21_tx'))]
        for n in ('modern_raw', 'modern_jpeg90'):
            cells.append(auc_of(rows(run, n)))
        for n in ('modern_raw', 'modern_jpeg90'):
            cells.append(auc_of([r for r in rows(run, n) if r['label'] == 'real' or r['source'] == 'modern/gptimage_cases']))
        say('%s | %s' % (run, ' | '.join('%.3f' % c for c in cells)))


def rank_auc(p, n):
    from scipy.stats import rankdata
    r = rankdata(np.concatenate([p, n]))
    return (r[:len(p)].sum() - len(p) * (len(p) + 1) / 2) / (len(p) * len(n))


def paired(a, b):
    rng = np.random.default_rng(0)
    for sets in (('val_raw', 'val21_raw'), ('val_tx', 'val21_tx'), ('val_raw',), ('val_tx',), ('val21_raw',),
                 ('val21_tx',), ('modern_raw',), ('modern_jpeg90',)):
        ra = {r['path']: r for s in sets for r in rows(a, s)}
        rb = {r['path']: r for s in sets for r in rows(b, s)}
        keys = [k for k in ra if k in rb]
        y = np.array([ra[k]['label'] == 'ai' for k in keys])
        if not keys or y.all() or not y.any():
            continue
        xa = np.array([logit_of(ra[k]) for k in keys])
        xb = np.array([logit_of(rb[k]) for k in keys])
        ip, ineg = np.where(y)[0], np.where(~y)[0]
        d0 = rank_auc(xb[ip], xb[ineg]) - rank_auc(xa[ip], xa[ineg])
        ds = []
        for _ in range(1000):
            p, n = rng.choice(ip, len(ip)), rng.choice(ineg, len(ineg))
            ds.append(rank_auc(xb[p], xb[n]) - rank_auc(xa[p], xa[n]))
        lo, hi = np.percentile(ds, [2.5, 97.5])
        say('%-22s n=%4d  %s - %s = %+.3f (%+.3f..%+.3f)' % ('+'.join(sets), len(keys), b, a, d0, lo, hi))


def heldout(specs):
    for spec in specs:
        fused, _, sets = spec.partition(':')
        vs = tuple(sets.split(',')) if sets else V21
        info = json.load(open(os.path.join(S.RUNS, fused, 'fusion.json')))
        scored = {n: card_v1.scored(json.load(open(os.path.join(S.RUNS, fused, 'scores-%s.json' % n))), 3, 32)
                  for n in vs + ('modern_raw', 'modern_jpeg90')}
        thr = card_v1.thresholds([t for n in vs for t in scored[n]])['highAi']
        hit_v = [(l, s >= thr and p not in fl) for n in vs for fl in [flags.flagged(n)] for l, _, s, p in scored[n]]
        t, z = fuse.apply_fit(info, 'd21train_raw')
        p = 1 / (1 + np.exp(-z))
        fl = flags.flagged('d21train_raw')
        lab = np.array([x[0] for x in t])
        src = np.array([x[1] for x in t])
        hit = np.array([pp >= thr and x[2] not in fl for pp, x in zip(p, t)])
        re, ai = lab == 'real', lab == 'ai'
        mod = []
        for n in ('modern_raw', 'modern_jpeg90'):
            fm = flags.flagged(n)
            r_ = [s >= thr and q not in fm for l, _, s, q in scored[n] if l == 'real']
            a_ = [s >= thr and q not in fm for l, _, s, q in scored[n] if l == 'ai']
            mod.append('%s real %d/%d, AI %.0f %%' % (n, sum(r_), len(r_), 100 * np.mean(a_)))
        say('%s: highAi %.4f from %s (validation real at it %.2f %%, AI %.1f %%) | d21train real %d/%d, AI %.0f %%, '
            'AUC %.3f | %s' % (fused, thr, '+'.join(vs), 100 * np.mean([h for l, h in hit_v if l == 'real']),
                              100 * np.mean([h for l, h in hit_v if l == 'ai']), hit[re].sum(), re.sum(),
                              100 * hit[ai].mean(), card_v1.auc(list(z[ai]), list(z[re])), ' | '.join(mod)))
        for s in sorted(set(src)):
            i = src == s
            say('    %-50s n=%3d at highAi %d' % (s, i.sum(), hit[i].sum()))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {'table': table, 'paired': lambda a: paired(*a), 'heldout': heldout}[cmd](args)
    name = os.path.join(S.HERE, 'results', 'val21-%s.txt' % cmd)
    with open(name, 'a') as f:
        f.write('\n'.join(OUT) + '\n')


if __name__ == '__main__':
    main()
