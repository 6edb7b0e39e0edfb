# Scores a finished run's checkpoint (runs/RUN/ckpt.pt) on eval caches it was not scored on when it was trained
# (e.g. the Data 2.1 validation sets, cached later with `cache.py eval --sets val21_raw,val21_tx`), writing only those
# sets' score files:  SEM_MODEL=... SEM_CACHE=... /usr/bin/python3 rescore.py RUN [RUN ...] --sets val21_raw,val21_tx
import argparse
import os

import torch

import sem_common as S
from train import Head, score_sets


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('runs', nargs='+')
    ap.add_argument('--sets', default='val21_raw,val21_tx')
    args = ap.parse_args()
    torch.set_num_threads(int(os.environ.get('OMP_NUM_THREADS', '1')))
    for run in args.runs:
        c = torch.load(os.path.join(S.RUNS, run, 'ckpt.pt'), map_location='cpu')
        model = Head(c['start'])
        model.load_state_dict(c['state'])
        print(run, score_sets(model, c['start'], os.path.join(S.RUNS, run), c.get('steps'), sets=args.sets.split(',')),
              flush=True)


if __name__ == '__main__':
    main()
