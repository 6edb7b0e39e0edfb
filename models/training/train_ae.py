# Trains small autoencoders on authentic crops whose decoders up-sample x8 like latent-diffusion VAEs (nearest
# up-sampling + convs) or GAN generators (transposed convs); their reconstructions are our self-made fakes.
import argparse
import os
import pickle
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import CACHE, VAL_SOURCES, seed_all

VARIANTS = {
    # name: (learned latent channels, up-sampling kind); the latent also carries the 8x8 mean colour (3 channels)
    'ldm4': (4, 'nearest'),
    'ldm16': (13, 'nearest'),
    'gan8': (5, 'transposed'),  # slow on CPU torch 1.13 (111 steps in 7 min under load): not used in the shipped recipe
    'sub8': (5, 'pixelshuffle'),  # sub-pixel convolution (conv to 4x channels + pixel shuffle), as in ESRGAN-style generators
}


class AE(nn.Module):
    def __init__(self, latent, up):
        super().__init__()
        act = nn.SiLU
        self.enc = nn.Sequential(
            nn.Conv2d(3, 32, 3, 1, 1), act(), nn.Conv2d(32, 32, 4, 2, 1), act(),
            nn.Conv2d(32, 64, 4, 2, 1), act(), nn.Conv2d(64, 96, 4, 2, 1), act(),
            nn.Conv2d(96, latent, 1))
        layers = [nn.Conv2d(latent + 3, 96, 3, 1, 1), act()]
        chans = [96, 64, 48, 32]
        for a, b in zip(chans[:-1], chans[1:]):
            if up == 'nearest':
                layers += [nn.Upsample(scale_factor=2, mode='nearest'), nn.Conv2d(a, b, 3, 1, 1), act(),
                           nn.Conv2d(b, b, 3, 1, 1), act()]
            elif up == 'pixelshuffle':
                layers += [nn.Conv2d(a, 4 * b, 3, 1, 1), nn.PixelShuffle(2), act(), nn.Conv2d(b, b, 3, 1, 1), act()]
            else:
                layers += [nn.ConvTranspose2d(a, b, 4, 2, 1), act(), nn.Conv2d(b, b, 3, 1, 1), act()]
        layers += [nn.Conv2d(32, 3, 3, 1, 1)]
        self.dec = nn.Sequential(*layers)

    def forward(self, x):
        # The 8x8 mean colour travels in the latent and a smooth bilinear x8 base carries it to full size, so a
        # CPU-trained autoencoder gets colours right within minutes; every detail above that base (the
        # generator traces) is synthesised by the conv decoder from the small latent.
        avg = F.avg_pool2d(x, 8)
        z = torch.cat([avg, self.enc(x)], 1)
        base = F.interpolate(avg, scale_factor=8.0, mode='bilinear', align_corners=False)
        return base + self.dec(z)


def authentic_train_images():
    with open(os.path.join(CACHE, 'train.pkl'), 'rb') as f:
        items = pickle.load(f)
    return [it for it in items if it['label'] == 'real' and (it['label'], it['source']) not in VAL_SOURCES]


def batch(imgs, rng, n, size):
    out = np.empty((n, size, size, 3), np.uint8)
    for i in range(n):
        im = imgs[rng.integers(len(imgs))]
        y = rng.integers(0, im.shape[0] - size + 1)
        x = rng.integers(0, im.shape[1] - size + 1)
        out[i] = im[y:y + size, x:x + size]
    return torch.from_numpy(out).float().div(255).permute(0, 3, 1, 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('variant', choices=sorted(VARIANTS))
    ap.add_argument('--steps', type=int, default=600, help='training length (the schedule follows it)')
    ap.add_argument('--seconds', type=float, default=3600, help='safety stop only')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--lr', type=float, default=2e-3)
    ap.add_argument('--resume', action='store_true', help='continue from the saved weights (training in stages)')
    a = ap.parse_args()
    torch.set_num_threads(int(os.environ.get('TORCH_THREADS', '1')))
    seed_all(a.seed)
    rng = np.random.default_rng(a.seed)
    imgs = [it['img'] for it in authentic_train_images() if min(it['img'].shape[:2]) >= 64]
    latent, up = VARIANTS[a.variant]
    model = AE(latent, up)
    path = os.path.join(CACHE, 'ae', f'{a.variant}.pt')
    if a.resume and os.path.exists(path):
        model.load_state_dict(torch.load(path))
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    t0, step = time.time(), 0
    while step < a.steps and time.time() - t0 < a.seconds:
        x = batch(imgs, rng, 16, 64)
        y = model(x)
        # L1 plus an L1 on horizontal/vertical gradients, so reconstructions keep edges instead of averaging them
        loss = F.l1_loss(y, x) + 0.5 * (F.l1_loss(y[..., 1:] - y[..., :-1], x[..., 1:] - x[..., :-1]) +
                                        F.l1_loss(y[..., 1:, :] - y[..., :-1, :], x[..., 1:, :] - x[..., :-1, :]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 200 == 0:
            with torch.no_grad():
                psnr = -10 * torch.log10(F.mse_loss(y.clamp(0, 1), x)).item()
            print(f'{a.variant} step {step} t {time.time() - t0:.0f}s loss {loss.item():.4f} psnr {psnr:.2f}', flush=True)
        for g in opt.param_groups:  # linear decay to 10 % over the run
            g['lr'] = a.lr * (1 - 0.9 * step / a.steps)
    os.makedirs(os.path.join(CACHE, 'ae'), exist_ok=True)
    torch.save(model.state_dict(), path)
    print('saved', a.variant, 'steps', step)


if __name__ == '__main__':
    main()
