# v1-perm-s3's checks P2-P4 (README "Set for the next candidate ... fifteenth session"): 1.5.1 (f22-f3) and the
# candidate (f12-v1-perm-s3, thresholds from its own ship_v11.py --valtilt run) on each set, each file against its own
# group's highAi (the search-8 finder's tags), the photo guard counted; real portraits at highAi counted apart (P3).
#   /usr/bin/python3 compare_s3.py REST_HIGHAI PORTRAITS_HIGHAI   (the candidate's thresholds)
import json, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.chdir(os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import sem_common as S
import portraits_check as PC
import portraits
tg = {}
tg.update(json.load(open('results/face-tags-search8.json'))['tags'])
port = lambda p: portraits.kind(tg.get(p)) == 'portrait'
cfg = [('1.5.1 (f22-f3)', 'f22-f3', 0.8506, 0.9609), ('candidate (f12-v1-perm-s3)', 'f12-v1-perm-s3', float(sys.argv[1]), float(sys.argv[2]))]
sets = ('val_raw', 'val_tx', 'val21_raw', 'val21_tx', 'valpt_raw', 'valpt_tx', 'valtilt_raw', 'valtilt_tx', 'modern_raw', 'modern_jpeg90')
fl = {n: PC.guard(n) for n in sets}
for name, run, t_o, t_p in cfg:
    info = json.load(open(os.path.join(S.RUNS, run, 'fusion.json')))
    print('==', name, 'rest %.4f portraits %.4f' % (t_o, t_p))
    pooled_rp = 0
    ai_untilted = {'raw': [], 'tx': []}
    for n in sets:
        sc = PC.fused_scores(run, info, n)
        re, ai, rp, rph, gpt = [], [], [], [], []
        for p, (l, s, z) in sc.items():
            h = 1 / (1 + np.exp(-z)) >= (t_p if port(p) else t_o) and p not in fl[n]
            (ai if l == 'ai' else re).append(h)
            if l == 'real':
                rp.append(port(p))
                if port(p): rph.append(h)
            if l == 'ai' and 'gptimage' in s: gpt.append(h)
        if not n.startswith('modern'): pooled_rp += sum(rph)
        if n.startswith(('val_', 'val21_')): ai_untilted['raw' if n.endswith('raw') else 'tx'] += ai
        print('  %-14s real %3d/%3d at highAi (%d read as portraits, %d of them at highAi)  AI %s%s' % (n, sum(re), len(re), sum(rp), sum(rph),
              '%d/%d = %.1f %%' % (sum(ai), len(ai), 100 * np.mean(ai)) if ai else '-', '  GPT-4o/Sora %d/%d' % (sum(gpt), len(gpt)) if gpt else ''))
    print('  P3 real portraits at highAi (valpt + tagged val/val21 + valtilt, as is + transformed): %d' % pooled_rp)
    print('  P4 untilted val + val21 AI at highAi: as is %.1f %% / transformed %.1f %% (of %d)' % (
        100 * np.mean(ai_untilted['raw']), 100 * np.mean(ai_untilted['tx']), len(ai_untilted['raw'])))
