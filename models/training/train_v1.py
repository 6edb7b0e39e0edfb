# Trains veracity-detector 1.0 (safe_model.SafeNet) from scratch on the crop cache of crops_v1.py, on the CPU, in the
# background: class-balanced batches with each source weighted by the square root of its size (so the 3,749 clothing
# photos do not make the real class), SAFE's augmentations (rotation by quarter turns and flips, colour jitter,
# random masking), AdamW with warm-up and a cosine schedule counted in steps, an exponential moving average of the
# weights, and a checkpoint every CKPT steps from which a run resumes exactly (same step, optimiser, EMA, RNG).
#
#   OMP_NUM_THREADS=1 nice /usr/bin/python3 train_v1.py RUN [--steps 3000] [--frac 1.0] [--npr]
# Writes runs/RUN/{ckpt.pt, log.jsonl, config.json}.
import argparse
import glob
import json
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

import common
from safe_model import SafeNet, count_params

CROPS = os.path.join(common.CACHE, 'crops1')
CROP_DIRS = [CROPS]
PERMISSIVE_ONLY = False  # --permissive-only
SHARES = {}  # crop cache dir -> share of each class's half of a batch (--share): such a cache stays loaded whole


class Pool:
    """A rolling pool of crop shards in memory (a whole pass is ~5 GB): POOL shards at a time, SWAP replaced every
    SWAP_EVERY steps, so every shard of every finished pass is used without holding them all."""

    def __init__(self, rng, frac, n_shards=14, swap=3):
        self.rng, self.frac, self.n, self.swap = rng, frac, n_shards, swap
        self.loaded = {}
        self.sources, self.offset, self.n_src = [], {}, {}
        for d in CROP_DIRS:  # each cache numbers its own sources: shards of later caches are offset
            self.offset[d] = len(self.sources)
            srcs = json.load(open(os.path.join(d, 'index.json')))['sources']
            self.n_src[d] = len(srcs)
            self.sources += srcs
        sys.path.insert(0, os.path.join(common.HERE, 'data'))
        import licences
        self.allowed = np.array([licences.permissive(n) for n in self.sources])
        self.refresh(initial=True)

    def available(self):
        return sorted(p for d in CROP_DIRS for p in glob.glob(os.path.join(d, '*_*.npz')) if not p.endswith('.tmp.npz'))

    def _load(self, p):
        d = np.load(p)
        x, y, s = d['x'], d['y'], d['s'].astype(np.int32) + self.offset[os.path.dirname(p)]
        if PERMISSIVE_ONLY:  # a build for commercial use: the crops of sources data/licences.py calls permissive
            keep = self.allowed[s]
            x, y, s = x[keep], y[keep], s[keep]
        if self.frac < 1.0:  # learning-curve runs: a fixed subset of the *images* (by crop hash), the same in every pass
            # crops of one image are consecutive (4 per image per pass): a fixed hash of (shard, image) keeps or drops
            # all of them; the shard number (not the pass) enters, so a pass keeps a different random subset
            key = np.arange(len(s)) // 4
            h = (key * 2654435761 + int(os.path.basename(p).split('_')[1].split('.')[0]) * 97) % 1000
            keep = h < self.frac * 1000
            x, y, s = x[keep], y[keep], s[keep]
        return x, y, s

    def refresh(self, initial=False):
        av = self.available()
        if not av:
            raise SystemExit('no crop shards in ' + CROPS)
        pinned = [p for p in av if os.path.dirname(p) in SHARES]
        for p in pinned:
            if p not in self.loaded:
                self.loaded[p] = self._load(p)
        if not initial:
            swappable = sorted(p for p in self.loaded if p not in pinned)
            for p in self.rng.sample(swappable, min(self.swap, len(swappable))):
                del self.loaded[p]
        fresh = [p for p in av if p not in self.loaded]
        self.rng.shuffle(fresh)
        for p in fresh[:max(0, self.n + len(pinned) - len(self.loaded))]:
            self.loaded[p] = self._load(p)
        xs, ys, ss = zip(*self.loaded.values())
        self.x = np.concatenate(xs)
        self.y = np.concatenate(ys)
        self.s = np.concatenate(ss)
        # sampling weights: each class half of the batch; within a class, source weight ~ sqrt(size)
        w = np.zeros(len(self.y))
        for cls in (0, 1):
            m = self.y == cls
            srcs, counts = np.unique(self.s[m], return_counts=True)
            sw = {a: np.sqrt(c) / c for a, c in zip(srcs, counts)}
            ws = np.array([sw[a] for a in self.s[m]])
            # --share: a cache's samples get that share of the class's mass (sqrt weighting inside it), the rest the others
            rest = np.ones(m.sum(), bool)
            mass = np.zeros(m.sum())
            left = 1.0
            for d, share in SHARES.items():
                lo, hi = self.offset[d], self.offset[d] + self.n_src[d]
                inc = (self.s[m] >= lo) & (self.s[m] < hi)
                if inc.any():
                    mass[inc] = share * ws[inc] / ws[inc].sum()
                    rest &= ~inc
                    left -= share
            if rest.any():
                mass[rest] = left * ws[rest] / ws[rest].sum()
            w[m] = 0.5 * mass / mass.sum()
        self.p = w / w.sum()

    def batch(self, n, nprng):
        i = nprng.choice(len(self.y), n, p=self.p)
        return self.x[i], self.y[i]


def palette(xb, nprng, p):
    """With probability p per crop, the crop as a dithered 256-colour palette image (as pngquant-like compressors and
    GIF write; the same for both classes): dithering is a texture the network must not read as a camera's noise."""
    if p <= 0:
        return xb
    from PIL import Image
    out = xb.copy()
    for i in range(len(xb)):
        if nprng.random() < p:
            q = Image.fromarray(xb[i]).quantize(int(nprng.choice([64, 128, 256])), dither=Image.Dither.FLOYDSTEINBERG)
            out[i] = np.asarray(q.convert('RGB'))
    return out


def augment(xb, nprng):
    """uint8 NHWC -> normalised float NCHW with SAFE's augmentations (the same for both classes)."""
    x = torch.from_numpy(xb).float().div_(255).permute(0, 3, 1, 2).contiguous()
    n = x.shape[0]
    for i in range(n):
        k = int(nprng.integers(4))
        if k:
            x[i] = torch.rot90(x[i], k, (1, 2))
        if nprng.random() < 0.5:
            x[i] = torch.flip(x[i], (2,))
    # colour jitter: brightness, contrast, saturation (+-15 %)
    b = torch.from_numpy(nprng.uniform(0.85, 1.15, (n, 1, 1, 1))).float()
    c = torch.from_numpy(nprng.uniform(0.85, 1.15, (n, 1, 1, 1))).float()
    s = torch.from_numpy(nprng.uniform(0.85, 1.15, (n, 1, 1, 1))).float()
    gray = x.mean(1, keepdim=True)
    x = gray + (x - gray) * s
    m = x.mean((1, 2, 3), keepdim=True)
    x = ((x - m) * c + m) * b
    x = x.clamp_(0, 1)
    # random masking: a rectangle of 5-25 % of the area set flat (p = 0.3)
    H = x.shape[2]
    for i in range(n):
        if nprng.random() < 0.3:
            a = nprng.uniform(0.05, 0.25)
            h = int(H * np.sqrt(a) * nprng.uniform(0.7, 1.3))
            w = int(H * H * a / max(h, 1))
            h, w = min(h, H), min(w, H)
            y0, x0 = nprng.integers(0, H - h + 1), nprng.integers(0, H - w + 1)
            x[i, :, y0:y0 + h, x0:x0 + w] = 0.5
    mean = torch.tensor(common.MEAN).view(1, 3, 1, 1)
    std = torch.tensor(common.STD).view(1, 3, 1, 1)
    return (x - mean) / std


def unfold_bn(model, pool, batches=16, n=32):
    """A folded checkpoint (onnx_to_ckpt.py: each BatchNorm the identity plus the folded bias b) computes z + b in eval
    mode, but in train mode its BatchNorms would normalise z by the batch's statistics: another function. Give each
    BatchNorm the statistics (mu, var) of its input z over a few batches of augmented training crops, and gamma =
    sqrt(var + eps), beta = mu + b: then train mode computes about z + b for a typical batch, and eval mode exactly z + b
    (running_mean mu, running_var var). Calibration batches come from their own generator (seed 0): the run's random
    streams are untouched."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    acc = {m: [0.0, 0.0, 0] for m in bns}

    def hook(m, inp, _out):
        z = inp[0].detach().double()
        acc[m][0] = acc[m][0] + z.sum((0, 2, 3))
        acc[m][1] = acc[m][1] + (z * z).sum((0, 2, 3))
        acc[m][2] += z.shape[0] * z.shape[2] * z.shape[3]

    hs = [m.register_forward_hook(hook) for m in bns]
    model.eval()
    cal = np.random.default_rng(0)
    with torch.no_grad():
        xs = [augment(pool.batch(n, cal)[0], cal) for _ in range(batches)]
        before = [model(x) for x in xs]
    for h in hs:
        h.remove()
    with torch.no_grad():
        for m in bns:
            s1, s2, k = acc[m]
            mu = (s1 / k).float()
            var = (s2 / k - (s1 / k) ** 2).clamp_min(0).float()
            b = m.bias.detach().clone()
            m.weight.copy_(torch.sqrt(var + m.eps))
            m.bias.copy_(mu + b)
            m.running_mean.copy_(mu)
            m.running_var.copy_(var)
        d_eval = max(float((model(x) - b).abs().max()) for x, b in zip(xs, before))
        saved = {m: (m.running_mean.clone(), m.running_var.clone()) for m in bns}
        model.train()
        model.drop.eval()
        d_train = float(torch.cat([(model(x) - b).abs().flatten() for x, b in zip(xs, before)]).median())
        for m in bns:  # the train-mode check moved the running statistics: put them back
            m.running_mean.copy_(saved[m][0])
            m.running_var.copy_(saved[m][1])
    model.train()
    print('unfolded %d BatchNorms: eval-mode logits max |diff| %.2e, train-mode (batch statistics) median |diff| %.3f'
          % (len(bns), d_eval, d_train), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('run')
    ap.add_argument('--steps', type=int, default=3000)
    ap.add_argument('--batch', type=int, default=32)
    ap.add_argument('--lr', type=float, default=2e-3)
    ap.add_argument('--frac', type=float, default=1.0)
    ap.add_argument('--npr', action='store_true')
    ap.add_argument('--widths', default='32,64,128,256')
    ap.add_argument('--ckpt-every', type=int, default=100)
    ap.add_argument('--swap-every', type=int, default=150)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--init', help='RUN/ckpt.pt: start from these weights (model and EMA), new optimiser and schedule')
    ap.add_argument('--crops', default='crops1', help='comma-separated crop caches under .cache/')
    ap.add_argument('--warmup', type=int, default=100)
    ap.add_argument('--unfold-bn', action='store_true', help='with --init of a folded checkpoint (onnx_to_ckpt.py): '
                    'give its BatchNorms statistics so that train mode starts from the same function')
    ap.add_argument('--palette', type=float, default=0.0, help='share of crops dithered to a 64-256 colour palette')
    ap.add_argument('--share', default='', help='CACHE=F[,...]: that crop cache (one of --crops) makes F of each class\'s '
                    'half of every batch and stays loaded whole (a run built for a small cache, such as crops4\'s faces)')
    ap.add_argument('--permissive-only', action='store_true', help='train on the sources data/licences.py calls '
                    'permissive only (a build for commercial use)')
    args = ap.parse_args()
    global PERMISSIVE_ONLY
    PERMISSIVE_ONLY = args.permissive_only
    CROP_DIRS[:] = [os.path.join(common.CACHE, c) for c in args.crops.split(',')]
    for kv in filter(None, args.share.split(',')):
        c, f = kv.split('=')
        assert c in args.crops.split(','), c
        SHARES[os.path.join(common.CACHE, c)] = float(f)
    assert sum(SHARES.values()) < 1, '--share: the shares leave nothing for the other caches'
    torch.set_num_threads(int(os.environ.get('TORCH_THREADS', '1')))
    out = os.path.join(common.RUNS, args.run)
    os.makedirs(out, exist_ok=True)
    widths = tuple(int(w) for w in args.widths.split(','))
    model = SafeNet(widths, npr=args.npr)
    ema = SafeNet(widths, npr=args.npr)
    ema.load_state_dict(model.state_dict())
    for p in ema.parameters():
        p.requires_grad_(False)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
    rng = random.Random(args.seed)
    nprng = np.random.default_rng(args.seed)
    step = 0
    ck = os.path.join(out, 'ckpt.pt')
    init_now = args.init and not os.path.exists(ck)
    if init_now:
        st = torch.load(os.path.join(common.RUNS, args.init))
        # a checkpoint rebuilt from the shipped ONNX (onnx_to_ckpt.py) holds only 'ema' and has its BatchNorms folded
        model.load_state_dict(st.get('model', st['ema']))
        ema.load_state_dict(st['ema'])
        print('initialised from', args.init, 'step', st['step'], flush=True)
    if os.path.exists(ck):
        st = torch.load(ck)
        model.load_state_dict(st['model'])
        ema.load_state_dict(st['ema'])
        opt.load_state_dict(st['opt'])
        step = st['step']
        rng.setstate(st['rng'])
        nprng.bit_generator.state = st['nprng']
        torch.set_rng_state(st['torch_rng'])
        print('resumed at step', step, flush=True)
    cfg = dict(vars(args), params=count_params(model), crop=192, widths=widths)
    json.dump(cfg, open(os.path.join(out, 'config.json'), 'w'), indent=1)
    pool = Pool(rng, args.frac)
    if init_now and args.unfold_bn:
        unfold_bn(model, pool)
        ema.load_state_dict(model.state_dict())
    log = open(os.path.join(out, 'log.jsonl'), 'a')
    t0 = time.time()
    seen_loss = []
    model.train()
    while step < args.steps:
        warm = args.warmup
        lr = args.lr * min(1.0, (step + 1) / warm) * 0.5 * (1 + np.cos(np.pi * min(1.0, step / args.steps)))
        for g in opt.param_groups:
            g['lr'] = lr
        xb, yb = pool.batch(args.batch, nprng)
        x = augment(palette(xb, nprng, args.palette), nprng)
        y = torch.from_numpy(yb.astype(np.float32)).view(-1, 1)
        logit = model(x)
        loss = F.binary_cross_entropy_with_logits(logit, y * 0.96 + 0.02)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        d = min(0.999, (1 + step) / (10 + step))
        with torch.no_grad():
            for pe, pm in zip(ema.state_dict().values(), model.state_dict().values()):
                if pe.dtype.is_floating_point:
                    pe.mul_(d).add_(pm.detach(), alpha=1 - d)
                else:
                    pe.copy_(pm)
        step += 1
        seen_loss.append(loss.item())
        if step % args.swap_every == 0:
            pool.refresh()
        if step % args.ckpt_every == 0 or step == args.steps:
            rec = dict(step=step, loss=float(np.mean(seen_loss)), lr=lr, seen=step * args.batch,
                       wall=time.time() - t0, pool=len(pool.y), shards=len(pool.available()))
            seen_loss = []
            log.write(json.dumps(rec) + '\n')
            log.flush()
            print(rec, flush=True)
            tmp = ck + '.tmp'
            torch.save(dict(model=model.state_dict(), ema=ema.state_dict(), opt=opt.state_dict(), step=step,
                            rng=rng.getstate(), nprng=nprng.bit_generator.state, torch_rng=torch.get_rng_state(),
                            config=cfg), tmp)
            os.replace(tmp, ck)
            if step % 500 == 0:
                torch.save(dict(ema=ema.state_dict(), step=step, config=cfg), os.path.join(out, 'ema-%05d.pt' % step))


if __name__ == '__main__':
    main()
