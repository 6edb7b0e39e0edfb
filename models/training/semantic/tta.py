# Scores a semantic checkpoint from the 224-px inputs kept by `cache.py eval --save-inputs` (any trunk cut, so a
# run trained on another cache can be scored on a set its own cache lacks), as is and, with --flip, as the mean logit
# of the picture and its mirror image (test-time augmentation, measured before any product change).
#   SEM_CACHE=semantic_b5 /usr/bin/python3 tta.py RUN --sets val_palette [--flip --tag -flip]
import argparse
import json
import os

import numpy as np
import torch

import export_onnx
import sem_common as S
import train


@torch.no_grad()
def full_logits(m, x, flip, batch=64):
    out = []
    for i in range(0, len(x), batch):
        xb = torch.from_numpy(x[i:i + batch]).float().div_(255.0)
        z = m(xb)
        if flip:
            z = (z + m(xb.flip(2))) / 2  # NHWC: axis 2 is the width
        out.append(z.numpy())
    return np.concatenate(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('run')
    ap.add_argument('--sets', default=','.join(S.EVAL_SETS))
    ap.add_argument('--flip', action='store_true')
    ap.add_argument('--tag', default='')
    a = ap.parse_args()
    torch.set_num_threads(int(os.environ.get('TORCH_THREADS', '1')))
    run_dir = os.path.join(S.RUNS, a.run)
    st = torch.load(os.path.join(run_dir, 'ckpt.pt'))
    head = train.Head(st['start'])
    head.load_state_dict(st['state'])
    m = export_onnx.Full(head, st['start']).eval()
    for name in a.sets.split(','):
        d = np.load(os.path.join(S.CACHE, name + '.npz'))
        z = full_logits(m, d['x'], a.flip)
        rows = [dict(label=r['label'], source=r['source'], path=r['path'], tiles=[float(1 / (1 + np.exp(-z[k])))], grid=1,
                     logit=float(z[k])) for k, r in S.cache_rows(name, d)]
        out = os.path.join(run_dir, 'scores-%s%s.json' % (name, a.tag))
        json.dump(dict(step=None, ckpt='ckpt.pt', set=name, tile=S.SIZE, stride=None, heat=1, flip=a.flip, rows=rows),
                  open(out, 'w'))
        print(a.run, name, len(rows), 'files', flush=True)


if __name__ == '__main__':
    main()
