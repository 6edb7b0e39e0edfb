# Stretch check for Data v1 (not a shipped model): do frozen ImageNet-style features separate the classes once the
# format shortcut is gone? UnivFD-style: a frozen backbone, features of transformed 224-px crops, a logistic head
# trained on the training split; AUC on the by-source validation split and on ../shared/datasets/modern/ (evaluation
# only). The backbone is nsfwjs 4.4.0's TF.js MobileNetV2 (ImageNet-initialised, fine-tuned by nsfwjs on 5 classes),
# converted here to PyTorch; its weights stay outside the repository.
#
#   mkdir /tmp/nsfwjs && cd /tmp/nsfwjs && npm pack nsfwjs@4.4.0 && tar xzf nsfwjs-4.4.0.tgz
#   OMP_NUM_THREADS=1 nice -n 19 /usr/bin/python3 probe_feasibility.py /tmp/nsfwjs/package [--per-source 120]
import argparse
import base64
import collections
import csv
import io
import json
import os
import random
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import format_baseline as fb  # noqa: E402
import restore  # noqa: E402
import transforms  # noqa: E402

torch.set_num_threads(int(os.environ.get('TORCH_THREADS', '1')))
HERE = os.path.dirname(os.path.abspath(__file__))
MODERN = os.path.abspath(os.path.join(HERE, '..', '..', '..', '..', 'shared', 'datasets', 'modern'))


def load_tfjs(pkg, name='mobilenet_v2'):
    """{weight name: float32 array} and the Keras layer list, read from nsfwjs' browserified model files."""
    d = os.path.join(pkg, 'dist', 'models', name)
    js = ("const m=require(%r); const out={topology:m.modelTopology, manifest:m.weightsManifest, shards:[]};"
          "for (const g of m.weightsManifest) for (const p of g.paths)"
          " out.shards.push(require(%r + '/' + p + '.min.js'));"
          "process.stdout.write(JSON.stringify(out));") % (os.path.join(d, 'model.min.js'), d)
    out = json.loads(subprocess.run(['node', '-e', js], stdout=subprocess.PIPE, check=True).stdout)
    buf = b''.join(base64.b64decode(s) for s in out['shards'])
    weights, off = {}, 0
    for group in out['manifest']:
        for w in group['weights']:
            n = int(np.prod(w['shape'])) if w['shape'] else 1
            q = w.get('quantization')
            if q:
                dt = {'uint8': np.uint8, 'uint16': np.uint16}[q['dtype']]
                raw = np.frombuffer(buf, dtype=dt, count=n, offset=off)
                off += n * np.dtype(dt).itemsize
                arr = raw.astype(np.float32) * q['scale'] + q['min']
            else:
                arr = np.frombuffer(buf, dtype=np.float32, count=n, offset=off).copy()
                off += n * 4
            weights[w['name']] = arr.reshape(w['shape'])
    return weights, out['topology']['model_config']['config']['layers']


class KerasMobileNetV2(nn.Module):
    """MobileNetV2 (alpha 1.0) rebuilt from the Keras layer list: same names, Keras 'same'/ZeroPadding semantics."""

    def __init__(self, weights, layers):
        super().__init__()
        self.params = nn.ParameterDict()
        for l in layers:
            c, cfg = l['class_name'], l['config']
            nm = cfg['name']
            if c in ('Conv2D', 'DepthwiseConv2D'):
                key = 'kernel' if c == 'Conv2D' else 'depthwise_kernel'
                k = weights['%s/%s' % (nm, key)]
                if c == 'Conv2D':
                    wt = torch.tensor(k).permute(3, 2, 0, 1).contiguous()
                    groups = 1
                else:
                    wt = torch.tensor(k).permute(2, 3, 0, 1).reshape(-1, 1, k.shape[0], k.shape[1]).contiguous()
                    groups = k.shape[2]
                bias = weights.get('%s/bias' % nm)
                self.params[nm.replace('/', '_') + '_w'] = nn.Parameter(wt, requires_grad=False)
                if bias is not None:
                    self.params[nm + '_b'] = nn.Parameter(torch.tensor(bias), requires_grad=False)
            elif c == 'BatchNormalization':
                g, b = weights['%s/gamma' % nm], weights['%s/beta' % nm]
                m, v = weights['%s/moving_mean' % nm], weights['%s/moving_variance' % nm]
                scale = g / np.sqrt(v + cfg['epsilon'])
                self.params[nm + '_s'] = nn.Parameter(torch.tensor(scale), requires_grad=False)
                self.params[nm + '_t'] = nn.Parameter(torch.tensor(b - m * scale), requires_grad=False)
            elif c == 'AveragePooling2D':
                break  # features: global average of the last conv block (1280-d)
        self.layers = layers

    def forward(self, x):
        # MobileNetV2's graph is a chain except the residual Adds, whose other input is the block's input: keep the
        # output of every '*_add' or the tensor entering each expanded block, following the Keras inbound nodes.
        outs = {}
        cur = x
        li = 0
        for l in self.layers:
            c, cfg = l['class_name'], l['config']
            nm = cfg['name']
            inb = [n[0] for n in l['inbound_nodes'][0]] if l.get('inbound_nodes') else []
            if c == 'InputLayer':
                outs[nm] = x
                continue
            if c == 'AveragePooling2D':
                break
            src = outs[inb[0]] if inb else cur
            if c == 'ZeroPadding2D':
                (t, b), (le, r) = cfg['padding']
                y = F.pad(src, (le, r, t, b))
            elif c in ('Conv2D', 'DepthwiseConv2D'):
                w = self.params[nm.replace('/', '_') + '_w']
                s = cfg['strides'][0]
                pad = 0
                if cfg['padding'] == 'same':
                    pad = w.shape[-1] // 2
                y = F.conv2d(src, w, self.params[nm + '_b'] if (nm + '_b') in self.params else None, s, pad,
                             groups=1 if c == 'Conv2D' else w.shape[0])
            elif c == 'BatchNormalization':
                y = src * self.params[nm + '_s'][None, :, None, None] + self.params[nm + '_t'][None, :, None, None]
            elif c == 'ReLU':
                y = torch.clamp(src, 0, cfg.get('max_value') or 6.0)
            elif c == 'Add':
                y = outs[inb[0]] + outs[inb[1]]
            else:
                y = src
            outs[nm] = y
            cur = y
            li += 1
        return cur.mean(dim=(2, 3))


def crops224(im, n=2, seed=0):
    """n crops of 224 px at native resolution of the (transformed) image: centre, then seeded random."""
    im = im.convert('RGB')
    if min(im.size) < 224:
        k = 224 / min(im.size)
        im = im.resize((max(224, round(im.width * k)), max(224, round(im.height * k))), Image.BICUBIC)
    W, H = im.size
    r = random.Random(seed)
    boxes = [((W - 224) // 2, (H - 224) // 2)] + [(r.randint(0, W - 224), r.randint(0, H - 224)) for _ in range(n - 1)]
    return [np.asarray(im.crop((x, y, x + 224, y + 224)), dtype=np.float32) / 255.0 for x, y in boxes]


def feats(net, arrays):
    x = torch.tensor(np.stack(arrays)).permute(0, 3, 1, 2)
    with torch.no_grad():
        return net(x).numpy()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('nsfwjs_package')
    ap.add_argument('--per-source', type=int, default=120)
    ap.add_argument('--seed', type=int, default=3)
    args = ap.parse_args()
    t0 = time.time()
    weights, layers = load_tfjs(args.nsfwjs_package)
    net = KerasMobileNetV2(weights, layers).eval()
    rows = fb.load_rows()
    rng = random.Random(args.seed)
    by = collections.defaultdict(list)
    for r in rows:
        by[r['source']].append(r)
    sample = []
    for s in sorted(by):
        xs = sorted(by[s], key=lambda r: r['blob'])
        rng.shuffle(xs)
        sample += xs[:args.per_source]
    X, y, split, src = [], [], [], []
    for k, r in enumerate(sample):
        data = open(os.path.join(restore.DEFAULT_OUT, r['class'], r['source'], restore.local_name(r, r['source'])), 'rb').read()
        b, _ = transforms.transform(transforms.open_image(data), args.seed, r['blob'])
        f = feats(net, crops224(Image.open(io.BytesIO(b)), 2, k)).mean(0)
        X.append(f)
        y.append(1.0 if r['class'] == 'ai' else 0.0)
        split.append(r['split'])
        src.append(r['source'])
        if (k + 1) % 200 == 0:
            print('  %d/%d (%.0f s)' % (k + 1, len(sample), time.time() - t0), flush=True)
    X, y = np.array(X), np.array(y)
    tr = np.array([s == 'train' for s in split])
    head = fb.Logistic().fit(X[tr], y[tr], l2=10.0)
    s_val = head.score(X[~tr])
    res = dict(backbone='nsfwjs 4.4.0 MobileNetV2 (TF.js, uint8-quantised weights), global-average 1280-d features',
               crops='2 x 224 px at native resolution after transforms.py (seed %d)' % args.seed,
               n_train=dict(ai=int(y[tr].sum()), real=int((1 - y[tr]).sum())),
               n_val=dict(ai=int(y[~tr].sum()), real=int((1 - y[~tr]).sum())),
               train_auc=round(fb.auc(y[tr], head.score(X[tr])), 3),
               val_auc=round(fb.auc(y[~tr], s_val), 3), val_auc_ci95=fb.boot_ci(y[~tr], s_val))
    per = {}
    val_src = [s for s, t in zip(src, tr) if not t]
    yv = y[~tr]
    for s in sorted({s for s, c in zip(val_src, yv) if c == 1}):
        idx = [i for i, (ss, c) in enumerate(zip(val_src, yv)) if ss == s or c == 0]
        per[s] = round(fb.auc(yv[idx], s_val[idx]), 3)
    res['val_auc_per_ai_source'] = per
    # modern/: evaluation only, its 384-px crops as they are (no transform) and after the transforms
    man = list(csv.DictReader(open(os.path.join(MODERN, 'MANIFEST.tsv')), delimiter='\t'))
    for mode in ('as_is', 'transformed'):
        Xm, ym, sm = [], [], []
        for k, m in enumerate(man):
            data = open(os.path.join(MODERN, m['local_file']), 'rb').read()
            im = Image.open(io.BytesIO(data))
            if mode == 'transformed':
                b, _ = transforms.transform(transforms.open_image(data), args.seed + 7, m['local_file'])
                im = Image.open(io.BytesIO(b))
            Xm.append(feats(net, crops224(im, 2, k)).mean(0))
            ym.append(1.0 if m['label'] == 'ai' else 0.0)
            sm.append(m['source'])
        Xm, ym = np.array(Xm), np.array(ym)
        s = head.score(Xm)
        out = dict(auc=round(fb.auc(ym, s), 3), auc_ci95=fb.boot_ci(ym, s),
                   n=dict(ai=int(ym.sum()), real=int((1 - ym).sum())))
        out['per_source'] = {ss: round(fb.auc(ym[[i for i, (a, c) in enumerate(zip(sm, ym)) if a == ss or c == 0]],
                                              s[[i for i, (a, c) in enumerate(zip(sm, ym)) if a == ss or c == 0]]), 3)
                             for ss in sorted({a for a, c in zip(sm, ym) if c == 1})}
        res['modern_' + mode] = out
    res['seconds'] = round(time.time() - t0, 1)
    json.dump(res, open(os.path.join(HERE, 'probe-feasibility.json'), 'w'), indent=1)
    print(json.dumps({k: v for k, v in res.items() if 'auc' in k or k.startswith('modern')}, indent=1))


if __name__ == '__main__':
    main()
