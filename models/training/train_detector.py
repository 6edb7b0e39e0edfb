# Trains the tile detector: authentic crops vs (their autoencoder twins, whole or blended into a region, and the
# real generator images of train/), every sample through the same random resize/JPEG/crop pipeline.
import argparse
import math
import os
import pickle
import time

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image, ImageFilter

from common import (CACHE, LICENCES, RUNS, TILE, VAL_SOURCES, Detector, auc, jpeg, normalise, save_json,
                    score_image, seed_all)


def load_items():
    with open(os.path.join(CACHE, 'train.pkl'), 'rb') as f:
        return pickle.load(f)


def load_twins(variants):
    twins = {}
    for v in variants:
        p = os.path.join(CACHE, f'twins_{v}.pkl')
        if os.path.exists(p):
            with open(p, 'rb') as f:
                twins[v] = pickle.load(f)
    return twins


def source_sampler(items, rng):
    """Draw an item with each source weighted by sqrt(its size), so no single source dominates."""
    by_src = {}
    for i, it in enumerate(items):
        by_src.setdefault(it['source'], []).append(i)
    srcs = sorted(by_src)
    w = np.array([math.sqrt(len(by_src[s])) for s in srcs])
    w /= w.sum()

    def draw():
        s = srcs[rng.choice(len(srcs), p=w)]
        return by_src[s][rng.integers(len(by_src[s]))]
    return draw


def aug_params(rng, h, w, args):
    """One draw of the shared pipeline: scale, crop box, JPEG quality (0 = none), flip."""
    f = 1.0
    r = rng.random()
    if r < args.p_down:
        f = rng.uniform(0.5, 1.0)
    elif r < args.p_down + args.p_up:
        f = rng.uniform(1.0, 1.5)
    side = int(math.ceil((TILE + 16) / f))
    side = min(side, h, w)
    y = int(rng.integers(0, h - side + 1))
    x = int(rng.integers(0, w - side + 1))
    q = int(rng.integers(60, 101)) if rng.random() < args.p_jpeg else 0
    # the order of draws is part of the recipe; with grain off there are no grain draws at all
    noise, noise_rng = 0.0, None
    if args.p_noise > 0:
        noise = float(rng.uniform(1.0, 6.0)) if rng.random() < args.p_noise else 0.0
    flip = bool(rng.random() < 0.5)
    if args.p_noise > 0:
        noise_rng = np.random.default_rng(int(rng.integers(1 << 30)))
    return dict(f=f, y=y, x=x, side=side, q=q, flip=flip, noise=noise, noise_rng=noise_rng,
                oy=int(rng.integers(0, 17)), ox=int(rng.integers(0, 17)))


def _box3(a, k):
    """3x3 weighted sum with zero padding (k is a 3x3 kernel)."""
    pad = np.pad(a, ((1, 1), (1, 1)))
    h, w = a.shape
    return sum(k[i][j] * pad[i:i + h, j:j + w] for i in range(3) for j in range(3))


def simulate_camera(c, rng):
    """Re-mosaic an authentic crop on a Bayer grid (random phase) and demosaic it bilinearly, optionally
    sharpened: native-resolution camera photos carry this 2-periodic interpolation trace, which the NPR residual
    sees, while most authentic training images were down-sampled and lost it. Labelled authentic."""
    x = c.astype(np.float32)
    h, w = x.shape[:2]
    py, px = int(rng.integers(2)), int(rng.integers(2))
    yy, xx = np.mgrid[0:h, 0:w]
    ey, ex = (yy + py) % 2 == 0, (xx + px) % 2 == 0
    masks = [ey & ex, ey != ex, ~ey & ~ex]  # R, G (two sites), B
    k_rb = [[1, 2, 1], [2, 4, 2], [1, 2, 1]]
    k_g = [[0, 1, 0], [1, 4, 1], [0, 1, 0]]
    out = np.empty_like(x)
    for ch, m in enumerate(masks):
        k = k_g if ch == 1 else k_rb
        mf = m.astype(np.float32)
        out[..., ch] = _box3(x[..., ch] * mf, k) / np.maximum(_box3(mf, k), 1e-6)
    out = np.clip(np.round(out), 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        out = np.asarray(Image.fromarray(out).filter(ImageFilter.UnsharpMask(radius=1.0, percent=int(rng.integers(40, 120)), threshold=0)), np.uint8)
    return out


def apply_aug(img, p):
    c = img[p['y']:p['y'] + p['side'], p['x']:p['x'] + p['side']]
    if p['f'] != 1.0:
        n = max(TILE, int(round(p['side'] * p['f'])))
        c = np.asarray(Image.fromarray(c).resize((n, n), Image.BICUBIC), dtype=np.uint8)
    if p.get('camera') is not None:
        c = simulate_camera(c, p['camera'])
    if p.get('blur'):
        c = np.asarray(Image.fromarray(c).filter(ImageFilter.GaussianBlur(p['blur'])), dtype=np.uint8)
    if p.get('noise'):
        c = np.clip(c.astype(np.float32) + p['noise_rng'].normal(0, p['noise'], c.shape), 0, 255).round().astype(np.uint8)
    if p['q']:
        c = jpeg(c, p['q'])
    oy = min(p['oy'], c.shape[0] - TILE)
    ox = min(p['ox'], c.shape[1] - TILE)
    t = c[oy:oy + TILE, ox:ox + TILE]
    if p['flip']:
        t = t[:, ::-1]
    return np.ascontiguousarray(t)


def blend_region(real, twin, rng):
    """Paste a random soft-edged rectangle of the twin into the real image; returns (image, mask 0..1)."""
    h, w = real.shape[:2]
    rh, rw = int(rng.integers(h // 4, h // 2 + 1)), int(rng.integers(w // 4, w // 2 + 1))
    y, x = int(rng.integers(0, h - rh + 1)), int(rng.integers(0, w - rw + 1))
    m = np.zeros((h, w), np.float32)
    m[y:y + rh, x:x + rw] = 1
    m = np.asarray(Image.fromarray((m * 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(3)), np.float32) / 255
    out = real.astype(np.float32) * (1 - m[..., None]) + twin.astype(np.float32) * m[..., None]
    return np.clip(np.round(out), 0, 255).astype(np.uint8), m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--name', required=True)
    ap.add_argument('--steps', type=int, default=0, help='training length; 0 = bounded by --minutes (not reproducible)')
    ap.add_argument('--minutes', type=float, default=20)
    ap.add_argument('--mode', default='npr', choices=['npr', 'npr+rgb', 'npr+fft'])
    ap.add_argument('--width', type=int, default=32)
    ap.add_argument('--twins', default='ldm4,ldm16,gan8', help='comma list of autoencoder variants; empty = none')
    ap.add_argument('--permissive', action='store_true', help='train only on permissively licensed sources')
    ap.add_argument('--no-gen', action='store_true', help='no real generator images, twins only')
    ap.add_argument('--p-jpeg', type=float, default=0.6)
    ap.add_argument('--p-down', type=float, default=0.2)
    ap.add_argument('--p-up', type=float, default=0.1)
    ap.add_argument('--p-blur', type=float, default=0.2)
    ap.add_argument('--p-noise', type=float, default=0.0, help='both classes: additive Gaussian grain, sigma 1-6')
    ap.add_argument('--p-camera', type=float, default=0.4, help='authentic tiles given simulated demosaicing')
    ap.add_argument('--p-partial', type=float, default=0.3)
    ap.add_argument('--batch', type=int, default=32)
    ap.add_argument('--lr', type=float, default=2e-3)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--no-eval', action='store_true', help='skip the quick figures at the end')
    ap.add_argument('--modern-sources', default='', help='comma list of modern/ai sources to train on; evaluate.py then '
                    'reports modern/ figures on the other sources only')
    args = ap.parse_args()
    torch.set_num_threads(int(os.environ.get('TORCH_THREADS', '1')))
    seed_all(args.seed)
    rng = np.random.default_rng(args.seed)
    out_dir = os.path.join(RUNS, args.name)
    os.makedirs(out_dir, exist_ok=True)

    items = load_items()

    def allowed(it):
        key = (it['label'], it['source'])
        return key not in VAL_SOURCES and (not args.permissive or LICENCES[key][1])
    train = [it for it in items if allowed(it) and min(it['img'].shape[:2]) >= TILE + 16]
    reals = [it for it in train if it['label'] == 'real']
    gens = [it for it in train if it['label'] == 'ai']
    extra = [s for s in args.modern_sources.split(',') if s]
    if extra:
        with open(os.path.join(CACHE, 'modern.pkl'), 'rb') as f:
            gens += [it for it in pickle.load(f) if it['label'] == 'ai' and it['source'] in extra]
    variants = [v for v in args.twins.split(',') if v]
    twins = load_twins(variants)
    variants = [v for v in variants if v in twins]
    paired = [i for i, it in enumerate(reals) if variants and all(it['name'] in twins[v] for v in variants)]
    print(f'train: {len(reals)} authentic, {len(gens)} generated, {len(paired)} with twins from {variants}', flush=True)
    draw_real = source_sampler(reals, rng)
    draw_gen = source_sampler(gens, rng)
    q = args.batch // 4

    model = Detector(args.mode, args.width)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    budget = args.minutes * 60
    t0, step, hist = time.time(), 0, []
    while True:
        el = time.time() - t0
        if (args.steps and step >= args.steps) or (not args.steps and el > budget):
            break
        frac = step / args.steps if args.steps else el / budget
        lr = args.lr * 0.5 * (1 + math.cos(math.pi * min(1.0, frac)))
        for g in opt.param_groups:
            g['lr'] = lr
        tiles, labels = [], []
        # authentic + twin pairs with identical crop and augmentation
        n_pair = q * 2 if not variants else q
        for _ in range(q if variants else 0):
            it = reals[paired[rng.integers(len(paired))]]
            v = variants[rng.integers(len(variants))]
            tw = twins[v][it['name']]
            p = aug_params(rng, *it['img'].shape[:2], args)
            tiles.append(apply_aug(it['img'], p)); labels.append(0.0)
            if rng.random() < args.p_partial:
                mixed, m = blend_region(it['img'], tw, rng)
                mt = apply_aug((m * 255).astype(np.uint8)[..., None].repeat(3, 2), dict(p, q=0))[..., 0] / 255.0
                tiles.append(apply_aug(mixed, p)); labels.append(float(min(1.0, mt.mean() * 2)))
            else:
                tiles.append(apply_aug(tw, p)); labels.append(1.0)
        for _ in range(n_pair if not variants else q):
            # hard negatives: some authentic tiles are blurred, so smoothness alone cannot mean "reconstructed"
            it = reals[draw_real()]
            p = aug_params(rng, *it['img'].shape[:2], args)
            r = rng.random()
            if r < args.p_blur:
                p['blur'] = float(rng.uniform(0.4, 1.5))
            elif r < args.p_blur + args.p_camera:
                p['camera'] = np.random.default_rng(int(rng.integers(1 << 30)))
            tiles.append(apply_aug(it['img'], p)); labels.append(0.0)
        n_gen = args.batch - len(tiles)
        for _ in range(n_gen if not args.no_gen else 0):
            it = gens[draw_gen()]
            tiles.append(apply_aug(it['img'], aug_params(rng, *it['img'].shape[:2], args))); labels.append(1.0)
        x = normalise(np.stack(tiles))
        y = torch.tensor(labels).view(-1, 1)
        model.train()
        logit = model(x)
        loss = F.binary_cross_entropy_with_logits(logit, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        hist.append(loss.item())
        if step % 100 == 0:
            print(f'step {step} t {el:.0f}s lr {lr:.2e} loss {np.mean(hist[-100:]):.4f}', flush=True)
    model.eval()
    torch.save({'state': model.state_dict(), 'mode': args.mode, 'width': args.width, 'args': vars(args),
                'steps': step}, os.path.join(out_dir, 'model.pt'))
    if args.no_eval:
        return
    # quick figures: by-source validation split and modern/
    vals = [it for it in items if (it['label'], it['source']) in VAL_SOURCES]
    sv = {'ai': [], 'real': []}
    for it in vals:
        sv[it['label']].append(score_image(model, it['img'])[0])
    with open(os.path.join(CACHE, 'modern.pkl'), 'rb') as f:
        modern = pickle.load(f)
    sm = {'ai': [], 'real': []}
    for it in modern:
        if it['source'] in extra and it['label'] == 'ai':
            continue
        sm[it['label']].append(score_image(model, it['img'])[0])
    res = dict(steps=step, minutes=args.minutes, val_auc=auc(sv['ai'], sv['real']), modern_auc=auc(sm['ai'], sm['real']))
    print(res, flush=True)
    save_json(os.path.join(out_dir, 'quick.json'), res)


if __name__ == '__main__':
    main()
