# Rebuilds the semantic branch's score files (runs/sem7-all/scores-<set>.json, train.py score_sets' format) from the
# shipped semantic.onnx when the PyTorch run is gone: each set's files are the shipped artefact model's score file
# (sem_common.eval_files, same order), built as eval_v1.py builds them (sem_common.eval_input), resized whole to
# 224x224 (sem_common.to224), and run through onnxruntime-node (onnx_scores.mjs; this Python has no onnxruntime).
# Files that fail to decode are skipped, as cache.py skips them. First checks parity.json's semantic fixtures.
#   OMP_NUM_THREADS=1 nice -n 10 /usr/bin/python3 onnx_scores.py [--sets val_raw,...] [--run sem7-all]
#   SEM_MODEL=inception_v3 ... onnx_scores.py --run inc-m10 [--sets ...]      (semantic2.onnx)
import argparse
import json
import os
import subprocess
import tempfile
import time

import numpy as np
from PIL import Image

import sem_common as S

# SEM_MODEL=inception_v3 scores the second content model (semantic2.onnx, 299 px, float16 weights) the same way
ONNX_NAME, PARITY_KEY = ('semantic2.onnx', 'semantic2') if S.MODEL == 'inception_v3' else ('semantic.onnx', 'semantic')
ONNX = os.path.join(S.common.SHIP, ONNX_NAME)
RUNNER = os.path.join(S.HERE, 'onnx_scores.mjs')


def run_onnx(x, model=ONNX, timed=False):
    """x: (N, SIZE, SIZE, 3) uint8 -> (N,) float32 logits of `model` through onnxruntime-node (one thread); timed:
    one picture at a time, and also the milliseconds of each run."""
    with tempfile.TemporaryDirectory(prefix='semonnx-') as d:
        xi, xo, xt = os.path.join(d, 'in.u8'), os.path.join(d, 'out.f32'), os.path.join(d, 'times.json')
        np.ascontiguousarray(x, dtype=np.uint8).tofile(xi)
        subprocess.run(['node', RUNNER, model, xi, str(len(x)), xo, str(x.shape[1])] + ([xt] if timed else []),
                       check=True, env=dict(os.environ, OMP_NUM_THREADS='1'))
        z = np.fromfile(xo, dtype=np.float32)
        return (z, json.load(open(xt))) if timed else z


def check_parity():
    par = json.load(open(os.path.join(S.common.SHIP, 'parity.json')))[PARITY_KEY]['fixtures']
    fx_dir = os.path.join(S.common.REPO, 'test', 'fixtures', 'model')
    x = np.stack([np.asarray(Image.open(os.path.join(fx_dir, f['file'])).convert('RGB'), dtype=np.uint8) for f in par])
    z = run_onnx(x)
    d = float(np.max(np.abs(z - np.array([f['logit'] for f in par]))))
    print(PARITY_KEY, 'parity fixtures: max |dlogit| %.2e' % d, flush=True)
    return d


def score_set(name, run_dir):
    t0 = time.time()
    rows_in = S.shipped_rows(name)
    xs, keep = [], []
    for j, (label, src, rel, path) in enumerate(S.eval_files(name)):
        try:
            arr = S.eval_input(name, open(path, 'rb').read(), path)
        except Exception as e:  # noqa: BLE001 - as cache.py: skipped, and said
            print('skip', path, e, flush=True)
            continue
        xs.append(S.to224(arr))
        keep.append(j)
    z = run_onnx(np.stack(xs))
    rows = []
    for j, lg in zip(keep, z):
        r = rows_in[j]
        rows.append(dict(label=r['label'], source=r['source'], path=r['path'], tiles=[float(1 / (1 + np.exp(-lg)))],
                         grid=1, size=r.get('size'), logit=float(lg)))
    json.dump(dict(step=None, ckpt=ONNX_NAME, set=name, tile=S.SIZE, stride=None, heat=1, rows=rows),
              open(os.path.join(run_dir, 'scores-%s.json' % name), 'w'))
    print(name, len(rows), 'of', len(rows_in), 'files %.0f s' % (time.time() - t0), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sets', default='val_raw,val_tx,modern_raw,modern_jpeg90')
    ap.add_argument('--run', default='sem7-all')
    args = ap.parse_args()
    assert (S.MODEL, S.SIZE) in (('mobilenet_v2', 224), ('inception_v3', 299)), 'the shipped content models run at 224 / 299 px'
    run_dir = os.path.join(S.RUNS, args.run)
    os.makedirs(run_dir, exist_ok=True)
    if check_parity() > 1e-4:
        raise SystemExit(ONNX_NAME + ' runner disagrees with parity.json')
    for name in args.sets.split(','):
        score_set(name, run_dir)


if __name__ == '__main__':
    main()
