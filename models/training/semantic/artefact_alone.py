# Artefact networks alone on the files 1.5.0's fusion scored (file score = top-3 mean of <= 32 tiles, as card_v1.py):
# AUC per set, and on modern/'s GPT-4o/Sora cases against its real photos.
#   /usr/bin/python3 artefact_alone.py RUN [RUN ...]        (eleventh session: v1-ft-data2 v1-perm)
import json
import os
import sys

import sem_common as S
import card_v1

SETS = ('val_raw', 'val_tx', 'val21_raw', 'val21_tx', 'modern_raw', 'modern_jpeg90')


def main(runs):
    print('artefact networks alone (file score = top-3 mean of <= 32 tiles; the files f22-f3 scores; AUC, GPT-4o/Sora vs real)')
    for name in SETS:
        ref = {r['path'] for r in json.load(open(os.path.join(S.RUNS, 'f22-f3', 'scores-%s.json' % name)))['rows']}
        out = []
        for run in runs:
            rows = [r for r in json.load(open(os.path.join(S.RUNS, run, 'scores-%s.json' % name)))['rows'] if r['path'] in ref]
            s = [(r['label'], r['source'], card_v1.file_score(r, 3, 32)) for r in rows]
            ai = [x for l, _, x in s if l == 'ai']
            re = [x for l, _, x in s if l == 'real']
            g = [x for l, src, x in s if 'gptimage' in src]
            out.append('%s %.3f%s' % (run, card_v1.auc(ai, re), ' (GPT-4o/Sora %.3f)' % card_v1.auc(g, re) if g else ''))
        print('  %-14s n=%4d  %s' % (name, len(rows), ' | '.join(out)))


if __name__ == '__main__':
    main(sys.argv[1:])
