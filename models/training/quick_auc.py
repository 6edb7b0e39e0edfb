# Prints AUC overall and per AI source for eval_v1.py score files (a quick look at a checkpoint; card_v1.py makes the card).
import sys
import card_v1
run = sys.argv[1]
for n in sys.argv[2:]:
    d = card_v1.load(run, n)
    for k in (1, 3):
        rows = card_v1.scored(d, k, 32)
        ai = [s for l, _, s, _ in rows if l == 'ai']
        re = [s for l, _, s, _ in rows if l == 'real']
        print(n, 'k=%d' % k, 'AUC %.3f' % card_v1.auc(ai, re), 'n=%d/%d' % (len(ai), len(re)))
        if k == 3:
            for src in sorted({s for _, s, _, _ in rows}):
                a = [x for l, s, x, _ in rows if s == src and l == 'ai']
                if a:
                    print('    %-45s %4d %.3f' % (src, len(a), card_v1.auc(a, re)))
