# The mean logit of several runs of one branch, written as a run of its own (runs/NAME/scores-<set>.json, the rows of
# the first run with `logit` and `tiles` replaced), so that fuse.py and val21.py can read it like any run. Information
# only: several networks of a branch do not fit the size budget (semantic/README.md, f27-ens3, ens3-kd3, ens3-inc).
#   /usr/bin/python3 ensemble_runs.py NAME RUN RUN [RUN ...] [--note TEXT]
import argparse
import json
import math
import os

import sem_common as S


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('name')
    ap.add_argument('runs', nargs='+')
    ap.add_argument('--note', default='')
    a = ap.parse_args()
    base = os.path.join(S.RUNS, a.runs[0])
    out = os.path.join(S.RUNS, a.name)
    os.makedirs(out, exist_ok=True)
    done = []
    for f in sorted(os.listdir(base)):
        if not (f.startswith('scores-') and f.endswith('.json')):
            continue
        paths = [os.path.join(S.RUNS, r, f) for r in a.runs]
        if not all(os.path.exists(p) for p in paths):
            continue
        ds = [json.load(open(p)) for p in paths]
        by = [{r['path']: r['logit'] for r in d['rows']} for d in ds]
        rows = []
        for r in ds[0]['rows']:
            if not all(r['path'] in b for b in by):
                raise SystemExit(f'{f}: {r["path"]} is not scored by every run')
            z = sum(b[r['path']] for b in by) / len(by)
            rows.append(dict(r, logit=z, tiles=[1 / (1 + math.exp(-z))]))
        d = dict(ds[0], ckpt='+'.join(a.runs), rows=rows)
        json.dump(d, open(os.path.join(out, f), 'w'))
        done.append(f[len('scores-'):-len('.json')])
    json.dump(dict(ensemble=a.runs, note=a.note), open(os.path.join(out, 'config.json'), 'w'), indent=1)
    print(a.name, 'sets:', ' '.join(done))


if __name__ == '__main__':
    main()
