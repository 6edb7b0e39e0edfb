# Rebuilds a PyTorch checkpoint of the shipped artefact network from models/veracity-detector/model.onnx (the
# training runs/ folder is git-ignored): the export folded each BatchNorm into its conv (weight + bias), so each conv
# gets the folded weight, its BN becomes the identity (weight 1, running_mean 0, running_var 1 - eps) and carries the
# folded bias. Writes runs/v1-ft-data2/ckpt-onnx.pt, loadable by eval_v1.load_model; checks parity.json's logits.
#   /usr/bin/python3 onnx_to_ckpt.py
import json
import os

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from PIL import Image

import common
import eval_v1
from safe_model import SafeNet

ONNX = os.path.join(common.SHIP, 'model.onnx')
OUT = os.path.join(common.RUNS, 'v1-ft-data2', 'ckpt-onnx.pt')


def main():
    g = onnx.load(ONNX).graph
    init = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in g.initializer}
    convs = [n for n in g.node if n.op_type == 'Conv' and n.input[1] != 'dwt.weight']
    first = init[convs[0].input[1]]
    npr = first.shape[1] == 21
    # stage widths: each block's c1 output channels, in graph order (the stem's width is widths[0] too)
    widths = [int(init[n.input[1]].shape[0]) for n in convs if n.output[0].endswith('/c1/Conv_output_0')]
    cfg = dict(widths=widths, npr=npr)
    m = SafeNet(tuple(cfg['widths']), npr=npr)
    sd = m.state_dict()
    # node output name '/body/body.1/short/short.0/Conv_output_0' -> module 'body.1.short.0'; BN is the next module
    bn_of = {'stem.0': 'stem.1'}
    for i in range(len(cfg['widths'])):
        bn_of.update({'body.%d.c1' % i: 'body.%d.b1' % i, 'body.%d.c2' % i: 'body.%d.b2' % i,
                      'body.%d.short.0' % i: 'body.%d.short.1' % i})
    done = set()
    for n in convs:
        path = n.output[0].strip('/').split('/')[:-1]
        mod = path[-1]  # e.g. 'stem.0', 'c1', 'short.0'
        if path[0] == 'stem':
            key = mod
        else:
            blk = path[1]  # 'body.1'
            key = blk + '.' + mod
        w, b = init[n.input[1]], init[n.input[2]]
        assert sd[key + '.weight'].shape == w.shape, (key, w.shape)
        sd[key + '.weight'] = w.clone()
        bn = bn_of[key]
        eps = 1e-5
        sd[bn + '.weight'] = torch.ones_like(b)
        sd[bn + '.bias'] = b.clone()
        sd[bn + '.running_mean'] = torch.zeros_like(b)
        sd[bn + '.running_var'] = torch.full_like(b, 1 - eps)
        done |= {key + '.weight', bn + '.weight', bn + '.bias', bn + '.running_mean', bn + '.running_var'}
    for k in ('in_scale', 'dwt.weight', 'fc.weight', 'fc.bias'):
        assert sd[k].shape == init[k].shape, k
        sd[k] = init[k].clone()
        done.add(k)
    left = [k for k in sd if k not in done and not k.endswith('num_batches_tracked')]
    assert not left, left
    m.load_state_dict(sd)
    m.eval()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    torch.save(dict(config=cfg, ema=m.state_dict(), step=None, source='models/veracity-detector/model.onnx (BN folded)'),
               OUT)
    print('wrote', OUT, cfg)
    # parity fixtures: the CI test's tiles (manifest tiling, no padding), logits within 1e-4
    par = json.load(open(os.path.join(common.SHIP, 'parity.json')))
    fx_dir = os.path.join(common.REPO, 'test', 'fixtures', 'model')
    worst = 0.0
    for fx in par['fixtures']:
        im = Image.open(os.path.join(fx_dir, fx['file']))
        if im.mode in ('RGBA', 'LA'):
            im = im.convert('RGBA')
        a = np.asarray(im.convert('RGB'), dtype=np.uint8)
        h, w = a.shape[:2]
        grid = eval_v1.grid_origins(w, h)
        grid = [grid[i] for i in eval_v1.sample_indices(len(grid), 32)]  # the manifest's maxTiles, as the CI test samples
        T = eval_v1.TILE
        t = torch.from_numpy(np.stack([a[y:y + T, x:x + T] for x, y in grid])).float().div(255).permute(0, 3, 1, 2)
        t = (t - 0.5) / 0.25
        with torch.no_grad():
            lg = m(t).flatten().double()
        p = torch.sigmoid(lg).numpy()
        d_logit = abs(float(lg[0]) - fx['topLeftLogit'])
        d_prob = float(np.max(np.abs(p - np.array(fx['tileProbabilities']))))
        k = min(3, len(p))
        d_score = abs(float(np.mean(np.sort(p)[::-1][:k])) - fx['fileScore'])
        worst = max(worst, d_logit, d_prob, d_score)
        print('%-28s tiles %d  |dlogit0| %.2e  max|dprob| %.2e  |dscore| %.2e' % (fx['file'], len(grid), d_logit, d_prob,
                                                                                  d_score))
    print('worst', worst, 'OK' if worst <= 1e-4 else 'FAIL')


if __name__ == '__main__':
    main()
