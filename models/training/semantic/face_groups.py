# What a face-aware decision would give (README "Portraits"): 1.4.0's fused scores (f22-f3) with two highAi
# thresholds, card_v1's 3 % rule applied to each group of validation's real photos (those portraits.py tags
# 'portrait', which a product-side face check could see, and the rest; all AI files in both fits), the photo guard
# counted. A measurement for the next step, not shipped.
#   /usr/bin/python3 face_groups.py
import json, os, sys
import numpy as np
sys.path.insert(0, '.')
import sem_common as S, card_v1, portraits_check as PC
sys.path.insert(0, S.TRAINING)
import portraits
tags = portraits.load()
run = 'f22-f3'
info = json.load(open(os.path.join(S.RUNS, run, 'fusion.json')))
V = ('val_raw', 'val21_raw', 'valpt_raw', 'val_tx', 'val21_tx', 'valpt_tx')
sets = V + ('d21train_raw', 'modern_raw', 'modern_jpeg90')
sc = {n: PC.fused_scores(run, info, n) for n in sets}
fl = {n: PC.guard(n) for n in sets}
port = lambda n, p: portraits.kind(tags.get(p)) == 'portrait'  # the detector's tag only, as a product would see it
rows = lambda grp: [(l, s, 1 / (1 + np.exp(-z)), p) for n in V for p, (l, s, z) in sc[n].items() if (l == 'ai' or port(n, p) == grp)]
tP = card_v1.thresholds(rows(True))['highAi']; tN = card_v1.thresholds(rows(False))['highAi']
print('portrait highAi %.4f, other %.4f' % (tP, tN))
for n in sets:
    re, rp, ai = [], [], []
    for p, (l, s, z) in sc[n].items():
        t = tP if port(n, p) else tN
        h = (1 / (1 + np.exp(-z))) >= t and p not in fl[n]
        (ai if l == 'ai' else re).append(h)
        if l == 'real' and port(n, p): rp.append(h)
    print('  %-14s real %d/%d (portraits %d/%d) AI %s' % (n, sum(re), len(re), sum(rp), len(rp), '%.0f %%' % (100 * np.mean(ai)) if ai else '-'))
