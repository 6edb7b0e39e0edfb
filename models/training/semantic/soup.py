# A weight-space average ("model soup", Wortsman et al. 2022) of two runs fine-tuned from the same start (same layers
# trained, same initial weights): state = (1 - alpha) * A + alpha * B, scored on the eval caches like train.py.
# Costs nothing at inference (one model of the same size).
#   SEM_MODEL=inception_v3 SEM_CACHE=inception_m8 /usr/bin/python3 soup.py inc-m10 inc2-m10 soup-inc [--alpha 0.5]
import argparse
import json
import os
import time

import torch

import sem_common as S
import train


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('a')
    ap.add_argument('b')
    ap.add_argument('out')
    ap.add_argument('--alpha', type=float, default=0.5)
    args = ap.parse_args()
    torch.set_num_threads(int(os.environ.get('TORCH_THREADS', '1')))
    t0 = time.time()
    ca, cb = (torch.load(os.path.join(S.RUNS, r, 'ckpt.pt')) for r in (args.a, args.b))
    assert ca['start'] == cb['start'], (ca['start'], cb['start'])
    state = {k: ((1 - args.alpha) * v.float() + args.alpha * cb['state'][k].float()).to(v.dtype) if v.is_floating_point() else v
             for k, v in ca['state'].items()}
    head = train.Head(ca['start'])
    head.load_state_dict(state)
    run_dir = os.path.join(S.RUNS, args.out)
    os.makedirs(run_dir, exist_ok=True)
    torch.save(dict(state=state, args=dict(soup=[args.a, args.b], alpha=args.alpha), start=ca['start']), os.path.join(run_dir, 'ckpt.pt'))
    scored = train.score_sets(head, ca['start'], run_dir, None)
    json.dump(dict(soup=[args.a, args.b], alpha=args.alpha, start=ca['start'], scored=scored, model=S.MODEL,
                   total_wall_s=round(time.time() - t0, 1)), open(os.path.join(run_dir, 'config.json'), 'w'), indent=1)
    print('done', scored, round(time.time() - t0), 's')


if __name__ == '__main__':
    main()
