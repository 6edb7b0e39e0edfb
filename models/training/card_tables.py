# Prints the model card's figure tables from a run's eval.json, so the card carries measured numbers verbatim.
import json
import sys

import numpy as np

from common import auc


def f3(v):
    return 'n/a' if v is None or v != v else f'{v:.3f}'


def auc_table(title, per_source, extra=None):
    rows = [f'| {title} | files (AI) | AUC |' + (f' {extra[0]} |' if extra else ''), '|---|---:|---:|' + ('---:|' if extra else '')]
    for k, v in per_source.items():
        if k == 'overall':
            continue
        rows.append(f'| {k} | {v["n_ai"]} | {f3(v["auc"])} |' + (f' {f3(extra[1][k]["auc"])} |' if extra else ''))
    o = per_source['overall']
    rows.append(f'| **all ({o["n_ai"]} AI vs {o["n_real"]} authentic)** | {o["n_ai"]} | **{f3(o["auc"])}** |' +
                (f' **{f3(extra[1]["overall"]["auc"])}** |' if extra else ''))
    return '\n'.join(rows)


def bootstrap_ci(pos, neg, reps=2000, seed=0):
    """95 % percentile interval of the AUC, resampling the AI and the authentic files separately (seeded)."""
    rng = np.random.default_rng(seed)
    pos, neg = np.asarray(pos), np.asarray(neg)
    vals = [auc(rng.choice(pos, len(pos)), rng.choice(neg, len(neg))) for _ in range(reps)]
    return float(np.percentile(vals, 2.5)), float(np.percentile(vals, 97.5))


def ci_table(title, scores):
    """AUC with a bootstrap 95 % interval per AI source against all authentic files of the set, from file scores."""
    reals = [s['score'] for s in scores if s['label'] == 'real']
    rows = [f'| {title} | files (AI) | AUC | 95 % interval (bootstrap) |', '|---|---:|---:|---|']
    srcs = sorted({s['source'] for s in scores if s['label'] == 'ai'})
    groups = [(src, [s['score'] for s in scores if s['label'] == 'ai' and s['source'] == src]) for src in srcs]
    groups.append(('**all**', [s['score'] for s in scores if s['label'] == 'ai']))
    for src, ais in groups:
        lo, hi = bootstrap_ci(ais, reals)
        rows.append(f'| {src} | {len(ais)} | {f3(auc(ais, reals))} | {f3(lo)}-{f3(hi)} |')
    return '\n'.join(rows)


def main():
    ev = json.load(open(sys.argv[1]))
    if 'file_scores' in ev:
        print(ci_table('modern/ source (vs photoprism_samples)', ev['file_scores']['modern']))
        print()
        print(ci_table('validation source (vs exif_samples + kodak24 + ml72 real)', ev['file_scores']['validation']))
        print()
    print('Thresholds:', json.dumps(ev['thresholds']))
    print()
    print(auc_table('modern/ source (vs photoprism_samples)', ev['modern']['per_source'],
                    ('AUC, both classes re-encoded JPEG q90', ev['modern_jpeg90_both_classes']['per_source'])))
    print()
    print('modern at decision:', json.dumps(ev['modern']['at_decision']))
    print()
    print(auc_table('validation source (vs exif_samples + kodak24 + ml72 real)', ev['validation']['per_source']))
    print()
    print('validation at decision:', json.dumps(ev['validation']['at_decision']))
    print('validation twins:', json.dumps(ev.get('validation_twins')))
    if 'robustness' in ev:
        r = ev['robustness']
        print()
        print('| perturbation | AI files flipped | authentic files flipped |')
        print('|---|---:|---:|')
        for k in ('jpeg70', 'resize50'):
            print(f'| {k} | {r[k]["ai"]["flipped"]}/{r[k]["ai"]["n"]} ({100 * r[k]["ai"]["fraction"]:.1f} %) | '
                  f'{r[k]["real"]["flipped"]}/{r[k]["real"]["n"]} ({100 * r[k]["real"]["fraction"]:.1f} %) |')
    if 'localisation' in ev:
        print()
        print('| blended region | files | top tile in region | chance (random tile) |')
        print('|---|---:|---:|---:|')
        for k, v in ev['localisation'].items():
            print(f'| {k} | {v["n"]} | {100 * v["hit_rate"]:.1f} % | {100 * v["chance"]:.1f} % |')


if __name__ == '__main__':
    main()
