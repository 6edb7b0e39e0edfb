# A Keras functional graph (the topology TF.js ships) run in PyTorch with float weights from nsfwjs_weights.py.
# Layers are built from the topology's configs and executed in its order along inbound_nodes, so MobileNetV2 and
# InceptionV3 are rebuilt without hand-written copies. TF 'same' padding (asymmetric for even kernels/strides) and
# Keras' explicit ZeroPadding2D are reproduced exactly; BatchNormalization runs in eval mode with Keras' epsilon.
# Tensors are NCHW inside; the model takes NHWC or NCHW floats in [0, 1] (nsfwjs divides pixels by 255).
import json
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'out')


def _pair(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v, v)


def same_pad(x, k, s, d=(1, 1)):
    """TF 'SAME': total = max((ceil(in/s)-1)*s + (k-1)*d + 1 - in, 0), the smaller half before."""
    ih, iw = x.shape[2], x.shape[3]
    ph = max((math.ceil(ih / s[0]) - 1) * s[0] + (k[0] - 1) * d[0] + 1 - ih, 0)
    pw = max((math.ceil(iw / s[1]) - 1) * s[1] + (k[1] - 1) * d[1] + 1 - iw, 0)
    return (pw // 2, pw - pw // 2, ph // 2, ph - ph // 2)


class KLayer(nn.Module):
    def __init__(self, cls, cfg, w):
        super().__init__()
        self.cls, self.cfg = cls, cfg
        name = cfg['name']
        P = lambda a: nn.Parameter(torch.from_numpy(np.ascontiguousarray(a)).float())  # noqa: E731
        if cls == 'Conv2D':
            self.weight = P(w[name + '/kernel'].transpose(3, 2, 0, 1))  # HWIO -> OIHW
            self.bias = P(w[name + '/bias']) if cfg.get('use_bias', True) else None
        elif cls == 'DepthwiseConv2D':
            k = w[name + '/depthwise_kernel']  # H W C M
            hh, ww, c, m = k.shape
            self.weight = P(k.reshape(hh, ww, c * m).transpose(2, 0, 1)[:, None])  # (C*M) 1 H W
            self.bias = P(w[name + '/bias']) if cfg.get('use_bias', True) else None
        elif cls == 'BatchNormalization':
            g = w.get(name + '/gamma')
            b = w.get(name + '/beta')
            mu, var = w[name + '/moving_mean'], w[name + '/moving_variance']
            self.register_buffer('mean', torch.from_numpy(mu).float())
            self.register_buffer('var', torch.from_numpy(var).float())
            self.gamma = P(g) if g is not None else None
            self.beta = P(b) if b is not None else None
        elif cls == 'Dense':
            self.weight = P(w[name + '/kernel'].T)
            self.bias = P(w[name + '/bias']) if cfg.get('use_bias', True) else None

    def act(self, x, a):
        if a in (None, 'linear'):
            return x
        if a == 'relu':
            return F.relu(x)
        if a == 'softmax':
            return F.softmax(x, 1)
        if a == 'sigmoid':
            return torch.sigmoid(x)
        raise ValueError(a)

    def forward(self, *xs):
        c, cfg = self.cls, self.cfg
        x = xs[0]
        if c == 'InputLayer':
            return x
        if c in ('Conv2D', 'DepthwiseConv2D'):
            k = tuple(self.weight.shape[2:])
            s, d = _pair(cfg['strides']), _pair(cfg.get('dilation_rate', 1))
            if cfg['padding'] == 'same':
                x = F.pad(x, same_pad(x, k, s, d))
            groups = x.shape[1] if c == 'DepthwiseConv2D' else 1
            x = F.conv2d(x, self.weight, self.bias, s, 0, d, groups)
            return self.act(x, cfg.get('activation'))
        if c == 'BatchNormalization':
            return F.batch_norm(x, self.mean, self.var, self.gamma, self.beta, False, 0.0, cfg['epsilon'])
        if c == 'ReLU':
            mv = cfg.get('max_value')
            if cfg.get('negative_slope', 0) or cfg.get('threshold', 0):
                raise ValueError('ReLU variant')
            return torch.clamp(x, 0, mv) if mv is not None else F.relu(x)
        if c == 'Activation':
            return self.act(x, cfg['activation'])
        if c == 'ZeroPadding2D':
            (t, b), (l, r) = cfg['padding'] if isinstance(cfg['padding'][0], list) else [[cfg['padding'][0]] * 2,
                                                                                       [cfg['padding'][1]] * 2]
            return F.pad(x, (l, r, t, b))
        if c in ('MaxPooling2D', 'AveragePooling2D'):
            k, s = _pair(cfg['pool_size']), _pair(cfg['strides'] or cfg['pool_size'])
            if cfg['padding'] == 'same':
                pad = same_pad(x, k, s)
                if c == 'MaxPooling2D':
                    x = F.pad(x, pad, value=-float('inf'))
                    return F.max_pool2d(x, k, s)
                # TF's SAME average pooling divides by the number of real (unpadded) inputs
                ones = F.pad(torch.ones_like(x[:1, :1]), pad)
                x = F.pad(x, pad)
                return F.avg_pool2d(x, k, s) / F.avg_pool2d(ones, k, s)
            return F.max_pool2d(x, k, s) if c == 'MaxPooling2D' else F.avg_pool2d(x, k, s)
        if c == 'GlobalAveragePooling2D':
            return x.mean((2, 3))
        if c == 'Flatten':
            return x.permute(0, 2, 3, 1).flatten(1) if x.dim() == 4 else x.flatten(1)  # Keras flattens NHWC
        if c == 'Dense':
            return self.act(F.linear(x, self.weight, self.bias), cfg.get('activation'))
        if c == 'Dropout':
            return x
        if c == 'Add':
            out = xs[0]
            for y in xs[1:]:
                out = out + y
            return out
        if c == 'Concatenate':
            ax = cfg.get('axis', -1)
            return torch.cat(xs, 1 if ax in (-1, 3) else ax)
        raise ValueError('unsupported layer ' + c)


class KerasGraph(nn.Module):
    """Runs the topology from `start` (a layer whose output is fed in; default the input) to `end` (default the
    model's output). Only layers on the path are built."""

    def __init__(self, name='mobilenet_v2', start=None, end=None, weights=None):
        super().__init__()
        meta = json.load(open(os.path.join(OUT, name + '.json')))
        w = weights if weights is not None else dict(np.load(os.path.join(OUT, name + '.npz')))
        topo = meta['modelTopology']
        cfg = topo['model_config']['config'] if 'model_config' in topo else topo['config']
        layers = cfg['layers']
        self.inbound = {L['name']: [n[0] for n in L['inbound_nodes'][0]] if L['inbound_nodes'] else [] for L in layers}
        order = [L['name'] for L in layers]
        self.start = start or order[0]
        self.end = end or cfg['output_layers'][0][0]
        # the layers needed for end, given start
        need, stack = set(), [self.end]
        while stack:
            n = stack.pop()
            if n in need:
                continue
            need.add(n)
            if n != self.start:
                stack += self.inbound[n]
        self.order = [n for n in order if n in need]
        self.layers = nn.ModuleDict()
        for L in layers:
            if L['name'] in need and L['name'] != self.start:
                self.layers[L['name'].replace('.', '_')] = KLayer(L['class_name'], L['config'], w)

    def forward(self, x):
        if x.dim() == 4 and x.shape[-1] == 3 and x.shape[1] != 3:
            x = x.permute(0, 3, 1, 2)
        vals = {self.start: x}
        for n in self.order:
            if n == self.start:
                continue
            vals[n] = self.layers[n.replace('.', '_')](*[vals[i] for i in self.inbound[n]])
        return vals[self.end]
