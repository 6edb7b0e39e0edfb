# One fused run (or several) at given thresholds, each file against its own group's highAi (portraits by the shipped
# turned-looks finder's tags), the photo guard counted: what compare_151.py and compare_s3.py counted for one
# candidate each, for any run (the eleventh-session note asked for one script). Per set: real / AI at highAi, real
# read as portraits; per source for the measuring sets (val24, val26, val27); then the pooled counts the checks name.
#   /usr/bin/python3 compare_fused.py RUN:REST:PORTRAITS [RUN:REST:PORTRAITS ...] [--tags FILE,...] [--sets S,...]
#   e.g. compare_fused.py f22-f3:0.8506:0.9609 f25-d27:0.85:0.96 --tags results/face-tags-search8.json,results/face-tags-val2627.json
import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

import sem_common as S  # noqa: E402  (first: it puts models/training on the path)
import portraits  # noqa: E402
import portraits_check as PC  # noqa: E402

SETS = ('val_raw', 'val_tx', 'val21_raw', 'val21_tx', 'valpt_raw', 'valpt_tx', 'valtilt_raw', 'valtilt_tx', 'modern_raw',
        'modern_jpeg90')
PER_SOURCE = ('val24_raw', 'val24_q90', 'val26_raw', 'val26_q90', 'val27_raw', 'val27_q90')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('runs', nargs='+', help='RUN:REST_HIGHAI:PORTRAITS_HIGHAI')
    ap.add_argument('--tags', default='results/face-tags-search8.json')
    ap.add_argument('--sets', default=','.join(SETS + PER_SOURCE))
    args = ap.parse_args()
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    tg = {}
    for f in args.tags.split(','):
        tg.update(json.load(open(f))['tags'])
    port = lambda p: portraits.kind(tg.get(p)) == 'portrait'  # noqa: E731
    sets = [n for n in args.sets.split(',') if os.path.exists(os.path.join(S.SHIPPED_RUN, 'scores-%s.json' % n))]
    fl = {n: PC.guard(n) for n in sets}
    for spec in args.runs:
        run, t_o, t_p = spec.split(':')
        t_o, t_p = float(t_o), float(t_p)
        info = json.load(open(os.path.join(S.RUNS, run, 'fusion.json')))
        print('== %s: rest %.4f, portraits %.4f' % (run, t_o, t_p))
        val_real, tilt_real = collections.Counter(), collections.Counter()
        for n in sets:
            sc = PC.fused_scores(run, info, n)
            re, ai, rp, gpt, untagged = [], [], [], [], 0
            by_src = collections.defaultdict(list)
            for p, (lab, src, z) in sc.items():
                untagged += p not in tg
                h = bool(1 / (1 + np.exp(-z)) >= (t_p if port(p) else t_o) and p not in fl[n])
                (ai if lab == 'ai' else re).append(h)
                if lab == 'real':
                    rp.append(port(p))
                if lab == 'ai' and 'gptimage' in src:
                    gpt.append(h)
                by_src[src.split('/')[-1]].append(h)
            if n.startswith(('val_', 'val21_', 'valpt_')):
                val_real[n.rsplit('_', 1)[1]] += sum(re)
                val_real['n_' + n.rsplit('_', 1)[1]] += len(re)
            if n.startswith('valtilt_'):
                tilt_real[n.rsplit('_', 1)[1]] += sum(re)
                tilt_real['n'] = len(re)
            print('  %-14s real %3d/%4d at highAi (%d read as portraits)  AI %s%s%s' % (
                n, sum(re), len(re), sum(rp), '%d/%d = %.1f %%' % (sum(ai), len(ai), 100 * np.mean(ai)) if ai else '-',
                '  GPT-4o/Sora %d/%d' % (sum(gpt), len(gpt)) if gpt else '',
                '  (%d files untagged: read as the rest)' % untagged if untagged else ''))
            if n in PER_SOURCE:
                for src, hs in sorted(by_src.items()):
                    print('      %-40s %3d/%3d = %5.1f %%' % (src, sum(hs), len(hs), 100 * np.mean(hs)))
        print('  validation real readings at highAi (val + val21 + valpt): as is %d, transformed %d, together %d of %d' % (
            val_real['raw'], val_real['tx'], val_real['raw'] + val_real['tx'], val_real['n_raw'] + val_real['n_tx']))
        print('  tilted real portraits at highAi: as is %d, transformed %d (of %d each)' % (
            tilt_real['raw'], tilt_real['tx'], tilt_real['n']))


if __name__ == '__main__':
    main()
