# Eighteenth session's probe (README.md "Eighteenth session: a probe"): 1.5.1's fusion (sem7-all, v1-ft-data2,
# inc-m10; fuse.py's regression) fitted on val_tx, and on val_tx + d27train_tx (Data 2.7's training files, never seen
# by 1.5.1's networks), then both read on sets neither fit saw. Information only, not a candidate.
#   /usr/bin/python3 probe_fit27.py        (writes results/eighteenth-probe-fit27.txt too)
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

import sem_common as S  # noqa: E402
import card_v1  # noqa: E402
import fuse  # noqa: E402

SEM, ART, SEM2 = (os.path.join(S.RUNS, r) for r in ('sem7-all', 'v1-ft-data2', 'inc-m10'))
COLS = fuse.COLS['all3']


def rows(name):
    return fuse.pairs(SEM, ART, name, SEM2)


def X(t):
    return np.array([[x[c] for c in COLS] for x in t])


def main():
    out = []
    say = lambda line: (print(line, flush=True), out.append(line))  # noqa: E731
    base = rows('val_tx')
    grok = rows('d27train_tx')
    real_fit = [x for n in ('val_tx', 'val21_tx', 'valpt_tx') for x in rows(n) if x[0] == 'real']
    say('fit sets: val_tx %d files (%d AI); d27train_tx %d AI files' % (len(base), sum(x[0] == 'ai' for x in base), len(grok)))
    for label, fit in (('val_tx (1.5.1)', base), ('val_tx + d27train_tx', base + grok)):
        y = np.array([1.0 if x[0] == 'ai' else 0.0 for x in fit])
        m = fuse.fit_lr(X(fit), y)
        say('== fitted on %s: standardised weights sem7-all %.3f, artefact %.3f, inc-m10 %.3f' % ((label,) + tuple(m[2][:3])))
        bar = np.percentile(fuse.predict(m, X(real_fit)), 97)
        say('   bar: the 97th percentile of %d real readings (val_tx + val21_tx + valpt_tx): logit %.3f' % (len(real_fit), bar))
        for n in ('modern_raw', 'modern_jpeg90', 'val21_raw', 'val21_tx'):
            t = rows(n)
            z = fuse.predict(m, X(t))
            ai = [v for v, x in zip(z, t) if x[0] == 'ai']
            re = [v for v, x in zip(z, t) if x[0] == 'real']
            gpt = [v for v, x in zip(z, t) if x[0] == 'ai' and 'gptimage' in x[1]]
            say('   %-14s AUC %.3f%s   AI above the bar %.1f %%, real %d of %d' % (
                n, card_v1.auc(ai, re), '  GPT-4o/Sora %.3f' % card_v1.auc(gpt, re) if gpt else '',
                100 * np.mean(np.array(ai) >= bar), int(np.sum(np.array(re) >= bar)), len(re)))
        for n in ('val26_raw', 'val26_q90', 'val27_raw', 'val27_q90'):
            t = rows(n)
            z = fuse.predict(m, X(t))
            groups = sorted({x[1].split('/')[-1] for x in t})
            per = ', '.join('%s %.0f %%' % (g, 100 * np.mean([v >= bar for v, x in zip(z, t) if x[1].split('/')[-1] == g])) for g in groups)
            say('   %-14s above the bar %.1f %% of %d (%s)' % (n, 100 * np.mean(z >= bar), len(z), per))
    with open(os.path.join(S.HERE, 'results', 'eighteenth-probe-fit27.txt'), 'w') as f:
        f.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
