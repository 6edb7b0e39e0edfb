# What a face-aware decision would give (README "Portraits"): 1.4.0's fused scores (f22-f3) with two highAi
# thresholds, card_v1's 3 % rule applied to each group of validation's real photos (those portraits.py tags
# 'portrait', which a product-side face check could see, and the rest; all AI files in both fits), the photo guard
# counted. A measurement for the next step, not shipped.
#   /usr/bin/python3 face_groups.py [TAGS.json]
# TAGS.json: tags made by the product's own face finder (../face_tags.ts); default portraits.py's Python tags.
import json
import sys
import os

import numpy as np

import sem_common as S
import card_v1
import portraits_check as PC
import portraits

RUN = os.environ.get('FG_RUN', 'f22-f3')  # another fused run: FG_RUN=f3-v2 face_groups.py TAGS.json
V = ('val_raw', 'val21_raw', 'valpt_raw', 'val_tx', 'val21_tx', 'valpt_tx')


def main():
    tags = json.load(open(sys.argv[1]))['tags'] if len(sys.argv) > 1 else portraits.load()
    info = json.load(open(os.path.join(S.RUNS, RUN, 'fusion.json')))
    sets = V + ('d21train_raw', 'modern_raw', 'modern_jpeg90', 'val23_raw', 'val24_raw', 'val24_q90')  # a set a branch has not scored: empty
    sc = {n: PC.fused_scores(RUN, info, n) for n in sets}
    fl = {n: PC.guard(n) for n in sets}

    def port(p):  # the face finder's tag only, as a product would see it
        return portraits.kind(tags.get(p)) == 'portrait'

    def rows(group):
        return [(l, s, 1 / (1 + np.exp(-z)), p) for n in V for p, (l, s, z) in sc[n].items()
                if l == 'ai' or port(p) == group]
    t_port, t_other = card_v1.thresholds(rows(True))['highAi'], card_v1.thresholds(rows(False))['highAi']
    print('portrait highAi %.4f, other %.4f' % (t_port, t_other))
    for n in sets:
        re, rp, ai = [], [], []
        for p, (l, s, z) in sc[n].items():
            h = 1 / (1 + np.exp(-z)) >= (t_port if port(p) else t_other) and p not in fl[n]
            (ai if l == 'ai' else re).append(h)
            if l == 'real' and port(p):
                rp.append(h)
        print('  %-14s real %d/%d (portraits %d/%d) AI %s' % (n, sum(re), len(re), sum(rp), len(rp),
                                                             '%.0f %%' % (100 * np.mean(ai)) if ai else '-'))
        if n in ('val23_raw', 'val24_raw', 'val24_q90') and sc[n]:  # measuring sets per source: called at their group's highAi
            for src in sorted({s for _, s, _ in sc[n].values()}):
                rows = [(p, z) for p, (l, s, z) in sc[n].items() if s == src]
                hit = [1 / (1 + np.exp(-z)) >= (t_port if port(p) else t_other) and p not in fl[n] for p, z in rows]
                print('    %-48s %3d files, %3d read as portraits, AI called %.0f %%' % (
                    src, len(rows), sum(port(p) for p, _ in rows), 100 * np.mean(hit)))


if __name__ == '__main__':
    main()
