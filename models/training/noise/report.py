# The noise branch's figures, by semantic/results.py's card() (card_v1.py's functions: AUC with 95 % bootstrap
# intervals, highAi from val_raw + val_tx only at <= 3 % of validation real files above, share of AI at or above it),
# plus decision flips under JPEG q70 / 50 % resize (card_v1.flips, on val_raw's files), and the "absence of a camera"
# cut: validation files whose original is lossless (PNG / TIFF / BMP), both classes, as is and through transforms.
# Writes results/<run>.json here (small, committed) and prints the markdown rows.
#   /usr/bin/python3 report.py RUN [RUN ...]
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.environ.get('SEM_DIR', '/work/main/models/training/semantic'))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sem_common as S  # noqa: E402
import card_v1  # noqa: E402
import results as R  # noqa: E402  (semantic/results.py: card())
import cache as C  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LOSSLESS = ('PNG', 'TIFF', 'BMP')
GPT = 'modern/gptimage_cases'


def fmt_map():
    out = {}
    for n in ('val_raw', 'modern_raw'):
        _, M = C.load(n)
        for m in M:
            out[m['path']] = m['fmt']
    return out


def auc_ci(rows):
    ai = [s for l, _, s, _ in rows if l == 'ai']
    re = [s for l, _, s, _ in rows if l == 'real']
    return dict(n_ai=len(ai), n_real=len(re), auc=card_v1.auc(ai, re), auc_ci=card_v1.boot_auc(ai, re))


def extra(rd, thr, fm):
    res = {}
    raw = card_v1.scored(json.load(open(os.path.join(rd, 'scores-val_raw.json'))), 3, 32)
    for n in ('val_q70', 'val_half'):
        p = os.path.join(rd, 'scores-%s.json' % n)
        if os.path.exists(p):
            res['flips_' + n] = card_v1.flips(raw, card_v1.scored(json.load(open(p)), 3, 32), thr)
    for n in ('val_raw', 'val_tx', 'modern_raw', 'modern_jpeg90'):
        p = os.path.join(rd, 'scores-%s.json' % n)
        if not os.path.exists(p):
            continue
        rows = card_v1.scored(json.load(open(p)), 3, 32)
        ll = [r for r in rows if fm.get(r[3]) in LOSSLESS]
        lossy = [r for r in rows if fm.get(r[3]) not in LOSSLESS]
        res['lossless_' + n] = auc_ci(ll)
        res['lossy_' + n] = auc_ci(lossy)
        # lossless AI originals against every real photo (the GPT-image/Sora case: clean PNG vs camera JPEG)
        res['losslessAI_vs_allreal_' + n] = auc_ci([r for r in rows if r[0] == 'real'] + [r for r in ll if r[0] == 'ai'])
    return res


def f(v):
    if not v or v.get('auc') is None or v['auc'] != v['auc']:
        return '-'
    lo, hi = v['auc_ci']
    return '%.3f (%s)' % (v['auc'], '%.2f-%.2f' % (lo, hi) if lo is not None else 'n<2')


def main():
    os.makedirs(os.path.join(HERE, 'results'), exist_ok=True)
    fm = fmt_map()
    out = []
    for run in sys.argv[1:]:
        rd = run if os.path.isabs(run) else os.path.join(S.RUNS, run)
        name = os.path.basename(rd.rstrip('/'))
        r = R.card(rd)
        r.update(card_v1.clean(extra(rd, r['thresholds'], fm)))
        cfg = os.path.join(rd, 'config.json')
        if os.path.exists(cfg):
            r['config'] = json.load(open(cfg))
        fz = os.path.join(rd, 'fusion.json')
        if os.path.exists(fz):
            r['fusion'] = json.load(open(fz))
        json.dump(r, open(os.path.join(HERE, 'results', name + '.json'), 'w'), indent=1)
        out.append((name, r))
    print('| run | AUC val_raw | AUC val_tx | AUC modern/ as is | AUC modern/ JPEG q90 | GPT-4o/Sora as is / q90 | '
          'AI called val_raw / val_tx | AI called modern/ as is / q90 | modern/ real above highAi as is / q90 |')
    for name, r in out:
        g = [r.get(n, {}).get('per_source', {}).get(GPT) for n in ('modern_raw', 'modern_jpeg90')]
        pc = lambda n, k: '%.0f %%' % (100 * r[n][k]) if n in r else '-'  # noqa: E731
        pc1 = lambda n, k: '%.1f %%' % (100 * r[n][k]) if n in r else '-'  # noqa: E731
        print('| %s | %s | %s | %s | %s | %s / %s | %s / %s | %s / %s | %s / %s |' % (
            name, f(r.get('val_raw')), f(r.get('val_tx')), f(r.get('modern_raw')), f(r.get('modern_jpeg90')),
            '%.3f' % g[0]['auc'] if g[0] else '-', '%.3f' % g[1]['auc'] if g[1] else '-',
            pc('val_raw', 'ai_called_ai'), pc('val_tx', 'ai_called_ai'), pc('modern_raw', 'ai_called_ai'),
            pc('modern_jpeg90', 'ai_called_ai'), pc1('modern_raw', 'real_called_ai'), pc1('modern_jpeg90', 'real_called_ai')))
    print()
    print('| run | lossless originals val_raw (n ai/real) | same files val_tx | JPEG/WebP originals val_raw | same val_tx | '
          'lossless AI vs all real: val_raw / val_tx / modern raw / modern q90 | flips q70 / half |')
    for name, r in out:
        l = r.get('lossless_val_raw', {})
        print('| %s | %s (%s/%s) | %s | %s | %s | %s / %s / %s / %s | %s / %s |' % (
            name, f(l), l.get('n_ai'), l.get('n_real'), f(r.get('lossless_val_tx')), f(r.get('lossy_val_raw')),
            f(r.get('lossy_val_tx')), f(r.get('losslessAI_vs_allreal_val_raw')), f(r.get('losslessAI_vs_allreal_val_tx')),
            f(r.get('losslessAI_vs_allreal_modern_raw')), f(r.get('losslessAI_vs_allreal_modern_jpeg90')),
            '%.1f %%' % (100 * r['flips_val_q70']) if r.get('flips_val_q70') is not None else '-',
            '%.1f %%' % (100 * r['flips_val_half']) if r.get('flips_val_half') is not None else '-'))
    print()
    for name, r in out:
        R.print_per_source(name, r)


if __name__ == '__main__':
    main()
