# Prints the model card's figure tables from a run's eval.json, so the card carries measured numbers verbatim.
import json
import sys


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


def main():
    ev = json.load(open(sys.argv[1]))
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
