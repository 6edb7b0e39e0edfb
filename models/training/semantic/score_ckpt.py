# Scores a kept snapshot of a run (train.py --snapshots) on the eval caches, as a run of its own:
#   /usr/bin/python3 score_ckpt.py RUN STEP   ->  runs/RUN@STEP/scores-<set>.json
import json
import os
import sys

import torch

import sem_common as S
from train import Head, score_sets


def main():
    run, step = sys.argv[1], int(sys.argv[2])
    torch.set_num_threads(1)
    c = torch.load(os.path.join(S.RUNS, run, 'ckpt-step%d.pt' % step))
    model = Head(c['start'])
    model.load_state_dict(c['state'])
    out = os.path.join(S.RUNS, '%s@%d' % (run, step))
    os.makedirs(out, exist_ok=True)
    scored = score_sets(model, c['start'], out, step, 'ckpt-step%d.pt' % step)
    json.dump(dict(of=run, step=step, scored=scored, args=c['args']), open(os.path.join(out, 'config.json'), 'w'), indent=1)
    print(out, scored)


if __name__ == '__main__':
    main()
