# Collects the quick figures (evaluate.py --quick -> runs/<name>/eval-quick.json) of every variant of the model
# card's "What was tried" table into ../veracity-detector/variants.json and prints the table's rows.
# Usage: variants_table.py v1 abl-notwins shipped:v3-grain ...   (card order; RUN:LABEL records run RUN under LABEL).
# A run without an evaluation keeps the entry already recorded in variants.json (v1 was time-bounded, so a rerun
# cannot reproduce it), or is reported and skipped.
import json
import os
import sys

from common import RUNS, SHIP, auc, save_json

SHIPPED = 'v3-grain'
GPT = 'gptimage_cases'


def r4(v):
    return None if v is None or v != v else round(float(v), 4)


def entry(ev):
    scores = ev['file_scores']['modern']
    reals = [s['score'] for s in scores if s['label'] == 'real']
    ais_wo = [s['score'] for s in scores if s['label'] == 'ai' and s['source'] != GPT]
    return dict(
        train_args=ev['train_args'], steps=ev['steps'],
        modern_sources_trained_on_and_excluded=ev.get('modern_sources_trained_on_and_excluded', []),
        contract=ev.get('contract'),
        validation_auc={k: r4(v['auc']) for k, v in ev['validation']['per_source'].items()},
        modern_auc={k: r4(v['auc']) for k, v in ev['modern']['per_source'].items()},
        modern_auc_without_gptimage=r4(auc(ais_wo, reals)),
        modern_jpeg90_both_classes_auc={k: r4(v['auc']) for k, v in ev['modern_jpeg90_both_classes']['per_source'].items()},
        validation_twins=ev['validation_twins'], thresholds=ev['thresholds'])


def main():
    path = os.path.join(SHIP, 'variants.json')
    recorded = {}
    if os.path.exists(path):
        with open(path) as f:
            recorded = json.load(f).get('variants', {})
    out = {}
    for arg in sys.argv[1:]:
        run, _, name = arg.partition(':')
        name = name or run
        ps = [os.path.join(RUNS, run, f) for f in ('eval-quick.json', 'eval.json')]
        p = next((q for q in ps if os.path.exists(q)), None)
        if p is None:
            if name in recorded:
                print(f'{name}: no evaluation under runs/{run}, keeping the recorded figures', file=sys.stderr)
                out[name] = recorded[name]
            else:
                print(f'{name}: no evaluation under runs/{run}, skipped', file=sys.stderr)
                continue
        else:
            with open(p) as f:
                out[name] = entry(json.load(f))
        e = out[name]
        print(f'| {name} | {e["validation_auc"]["overall"]:.3f} | {e["modern_auc"]["overall"]:.3f} | '
              f'{e["modern_auc_without_gptimage"]:.3f} | {e["modern_auc"].get(GPT, float("nan")):.3f} | '
              f'{e["modern_jpeg90_both_classes_auc"]["overall"]:.3f} |')
    save_json(os.path.join(SHIP, 'variants.json'),
              dict(note=f'quick figures (evaluate.py --quick) of every variant in the model card; {SHIPPED} is the '
                        'shipped model; written by models/training/variants_table.py', variants=out))


if __name__ == '__main__':
    main()
