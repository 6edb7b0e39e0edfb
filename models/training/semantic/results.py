# The semantic branch's results table: card_v1.py's figures (AUC with 95 % bootstrap intervals, threshold highAi from
# the validation sets the run holds (val_raw + val_tx [+ val21_*] [+ valpt_*]): <= 3 % of validation real files above; the share of AI files at or above it) for each run,
# plus modern/ per source. Writes results/<run>.json (small, committed) and prints markdown rows.
#   /usr/bin/python3 results.py RUN [RUN ...]    (a run is runs/RUN of this checkout, or an absolute directory)
import json
import os
import sys

import sem_common as S
import card_v1

SETS = ('val_raw', 'val_tx', 'modern_raw', 'modern_jpeg90', 'val21_raw', 'val21_tx')  # val21_*: when scored (Data 2.1)


def card(run_dir):
    d = {n: json.load(open(os.path.join(run_dir, 'scores-%s.json' % n))) for n in SETS + ('valpt_raw', 'valpt_tx')
         if os.path.exists(os.path.join(run_dir, 'scores-%s.json' % n))}
    pool = []
    for n in ('val_tx', 'val_raw', 'val21_tx', 'val21_raw', 'valpt_tx', 'valpt_raw'):
        if n in d:
            pool += card_v1.scored(d[n], 3, 32)
    thr = card_v1.thresholds(pool)
    res = dict(run=run_dir, thresholds=thr)
    for n in SETS:
        if n in d:
            res[n] = card_v1.summary(card_v1.scored(d[n], 3, 32), thr)
    for n in ('valpt_raw', 'valpt_tx'):  # real portraits only (Data 2.2): no AUC, the share called AI
        if n in d:
            re = [s for _, _, s, _ in card_v1.scored(d[n], 3, 32)]
            res[n] = dict(n_real=len(re), real_called_ai=sum(s >= thr['highAi'] for s in re) / len(re))
    return card_v1.clean(res)


def f(v):
    lo, hi = v['auc_ci']
    return '%.3f (%s)' % (v['auc'], '%.2f-%.2f' % (lo, hi) if lo is not None else 'n<2')


def print_per_source(name, r):
    """modern/ per source of a card: AUC as is / JPEG q90 and the share called AI at the validation threshold."""
    if 'modern_raw' not in r:
        return
    print(name, 'modern per source (raw / jpeg90):')
    for s, v in r['modern_raw']['per_source'].items():
        w = r.get('modern_jpeg90', {}).get('per_source', {}).get(s)
        print('   %-28s %-5s n=%3d %s / %s  called AI %.0f %% / %s' % (
            s, v['cls'], v['n'], f(v), f(w) if w else '-', 100 * v['called_ai'],
            '%.0f %%' % (100 * w['called_ai']) if w else '-'))


def main():
    os.makedirs(os.path.join(S.HERE, 'results'), exist_ok=True)
    for run in sys.argv[1:]:
        rd = run if os.path.isabs(run) else os.path.join(S.RUNS, run)
        r = card(rd)
        name = os.path.basename(rd.rstrip('/'))
        json.dump(r, open(os.path.join(S.HERE, 'results', name + '.json'), 'w'), indent=1)
        cells = [name]
        for n in SETS:
            cells.append(f(r[n]) if n in r else '-')
        g = [r[n]['per_source'].get('modern/gptimage_cases') for n in ('modern_raw', 'modern_jpeg90')]
        cells += [f(x) if x else '-' for x in g]
        cells += ['%.0f %%' % (100 * r[n]['ai_called_ai']) if n in r else '-' for n in SETS]
        cells += ['%.1f %%' % (100 * r[n]['real_called_ai']) if n in r else '-' for n in ('modern_raw', 'modern_jpeg90')]
        print('| ' + ' | '.join(cells) + ' |')
    print('columns: run | AUC val_raw | val_tx | modern_raw | modern_jpeg90 | GPT-4o/Sora raw | GPT-4o/Sora jpeg90 | '
          'AI called at <=3 % val real FP: val_raw | val_tx | modern_raw | modern_jpeg90 | modern real called AI raw | jpeg90')
    for run in sys.argv[1:]:
        name = os.path.basename(run.rstrip('/'))
        r = json.load(open(os.path.join(S.HERE, 'results', name + '.json')))
        print_per_source(name, r)


if __name__ == '__main__':
    main()
