# Proves the conversion: the PyTorch rebuild (keras_torch.py, dequantised float weights) vs nsfwjs' own TF.js model
# (TF.js dequantises its uint8 weights itself; pure-JS CPU backend in Node) on the same 224x224 inputs (validation
# and modern/ files of both classes, resized the semantic branch's way). Writes out/parity.json and prints it.
#   /usr/bin/python3 parity.py /tmp/nsfw   (the directory where nsfwjs-4.4.0.tgz was unpacked; needs @tensorflow/tfjs
#   in NODE_PATH, e.g. `cd /tmp/tfjs && npm install @tensorflow/tfjs@4`)
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

import keras_torch
import sem_common

ENDPOINTS = ['block_12_add', 'out_relu']


def main():
    pkg = sys.argv[1]
    model = os.environ.get('MODEL', 'mobilenet_v2')
    torch.set_num_threads(1)
    files = sem_common.parity_files()
    x = np.stack([sem_common.to224(sem_common.decode(open(p, 'rb').read())) for p in files]).astype(np.float32) / 255.0
    work = tempfile.mkdtemp(prefix='parity-')
    x.tofile(os.path.join(work, 'in.bin'))
    env = dict(os.environ, NODE_PATH=os.environ.get('NODE_PATH', '/tmp/tfjs/node_modules'), ENDPOINTS=','.join(ENDPOINTS))
    r = subprocess.run(['node', os.path.join(keras_torch.HERE, 'parity_tfjs.mjs'), pkg, work, str(len(files))],
                       env=env, capture_output=True, text=True)
    print(r.stdout, r.stderr[-2000:])
    res = dict(files=[os.path.relpath(p, sem_common.MAIN) for p in files], tfjs=r.stdout.strip(), endpoints={})
    xt = torch.from_numpy(x)
    with torch.no_grad():
        for e in ENDPOINTS + ['final']:
            g = keras_torch.KerasGraph(model, end=None if e == 'final' else e).eval()
            pt = g(xt).numpy()
            if pt.ndim == 4:
                pt = pt.transpose(0, 2, 3, 1)  # NHWC like TF.js
            shape = json.load(open(os.path.join(work, 'tfjs-%s.shape' % e)))
            tj = np.fromfile(os.path.join(work, 'tfjs-%s.bin' % e), dtype=np.float32).reshape(shape)
            d = np.abs(pt - tj)
            res['endpoints'][e] = dict(shape=shape, max_abs_diff=float(d.max()), mean_abs_diff=float(d.mean()),
                                       max_abs_value=float(np.abs(tj).max()),
                                       rel_l2=float(np.linalg.norm(pt - tj) / np.linalg.norm(tj)))
            if e == 'final':
                res['endpoints'][e]['argmax_agree'] = int((pt.argmax(1) == tj.argmax(1)).sum())
                res['tfjs_probs'] = tj.round(5).tolist()
                res['torch_probs'] = pt.round(5).tolist()
    os.makedirs(sem_common.OUT, exist_ok=True)
    json.dump(res, open(os.path.join(sem_common.OUT, 'parity-%s.json' % model), 'w'), indent=1)
    print(json.dumps(res['endpoints'], indent=1))


if __name__ == '__main__':
    main()
