# A weight-space average ("model soup", Wortsman et al. 2022) of runs fine-tuned from the same start (same layers
# trained, same initial weights), scored on the eval caches like train.py. Two runs: state = (1 - alpha) * A + alpha * B;
# three or more: the uniform mean (--alpha is refused). Costs nothing at inference (one model of the same size).
#   SEM_MODEL=inception_v3 SEM_CACHE=inception_m8 /usr/bin/python3 soup.py inc-m10 inc2-m10 soup-inc [--alpha 0.5]
#   /usr/bin/python3 soup.py sem7-all-r sem7-all-r-s1 sem7-all-r-s2 soup3-sem7
import argparse
import json
import os
import time

import torch

import sem_common as S
import train


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('runs', nargs='+', help='two or more runs, then the output run')
    ap.add_argument('--alpha', type=float, default=None)
    args = ap.parse_args()
    *runs, args.out = args.runs
    if len(runs) < 2:
        raise SystemExit('give at least two runs and the output run')
    if args.alpha is not None and len(runs) != 2:
        raise SystemExit('--alpha is for two runs; three or more are averaged uniformly')
    torch.set_num_threads(int(os.environ.get('TORCH_THREADS', '1')))
    t0 = time.time()
    cks = [torch.load(os.path.join(S.RUNS, r, 'ckpt.pt'), map_location='cpu') for r in runs]
    ca = cks[0]
    for c in cks[1:]:
        assert c['start'] == ca['start'], (ca['start'], c['start'])
        assert c['state'].keys() == ca['state'].keys()
    w = [1 - args.alpha, args.alpha] if args.alpha is not None else [1 / len(runs)] * len(runs)
    state = {k: sum(wi * c['state'][k].float() for wi, c in zip(w, cks)).to(v.dtype) if v.is_floating_point() else v
             for k, v in ca['state'].items()}
    head = train.Head(ca['start'])
    head.load_state_dict(state)
    run_dir = os.path.join(S.RUNS, args.out)
    os.makedirs(run_dir, exist_ok=True)
    torch.save(dict(state=state, args=dict(soup=runs, weights=w), start=ca['start']), os.path.join(run_dir, 'ckpt.pt'))
    scored = train.score_sets(head, ca['start'], run_dir, None)
    json.dump(dict(soup=runs, weights=w, start=ca['start'], scored=scored, model=S.MODEL,
                   total_wall_s=round(time.time() - t0, 1)), open(os.path.join(run_dir, 'config.json'), 'w'), indent=1)
    print('done', scored, round(time.time() - t0), 's')


if __name__ == '__main__':
    main()
