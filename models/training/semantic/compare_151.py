# 1.5.0 against 1.5.1 on the same fused scores (f22-f3): each file against its own group's highAi (1.5.0: upright finder,
# rest 0.829 / portraits 0.9574; 1.5.1: turned looks with 8 neighbours, 0.8506 / 0.9609), the photo guard counted.
#   /usr/bin/python3 compare_151.py
import json, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.chdir(os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import sem_common as S
import portraits_check as PC
import portraits
info = json.load(open(os.path.join(S.RUNS, 'f22-f3', 'fusion.json')))
def tags(files):
    t = {}
    for f in files: t.update(json.load(open(f))['tags'])
    return t
R = 'results/'
cfg = {
 '1.5.0': (tags([R+'face-tags.json', R+'face-tags-val23.json', R+'face-tags-val24.json', R + 'face-tags-valtilt.json']), 0.829, 0.9574),
 '1.5.1': (tags([R + 'face-tags-search8.json']), 0.8506, 0.9609),
}
sets = ('val_raw', 'val_tx', 'val21_raw', 'val21_tx', 'valpt_raw', 'valpt_tx', 'valtilt_raw', 'valtilt_tx', 'modern_raw', 'modern_jpeg90', 'val23_raw', 'val24_raw', 'val24_q90')
sc = {n: PC.fused_scores('f22-f3', info, n) for n in sets}
fl = {n: PC.guard(n) for n in sets}
for name, (tg, t_o, t_p) in cfg.items():
    port = lambda p: portraits.kind(tg.get(p)) == 'portrait'
    print('==', name, 'rest %.4f portraits %.4f' % (t_o, t_p))
    for n in sets:
        re, ai, rp, gpt = [], [], [], []
        for p, (l, s, z) in sc[n].items():
            h = 1 / (1 + np.exp(-z)) >= (t_p if port(p) else t_o) and p not in fl[n]
            (ai if l == 'ai' else re).append(h)
            if l == 'real': rp.append(port(p))
            if l == 'ai' and 'gptimage' in s: gpt.append(h)
        print('  %-14s real %3d/%3d at highAi (%d read as portraits)  AI %s%s' % (n, sum(re), len(re), sum(rp),
              '%d/%d = %.1f %%' % (sum(ai), len(ai), 100 * np.mean(ai)) if ai else '-', '  GPT-4o/Sora %d/%d' % (sum(gpt), len(gpt)) if gpt else ''))
