# Reconstructs every authentic training image with each autoencoder: the twin has the same content and history,
# only the decoder's up-sampling traces differ. Val sources get twins too (used only to measure, never to train).
import argparse
import os
import pickle
import time

import numpy as np
import torch

from common import CACHE, seed_all
from train_ae import AE, VARIANTS


@torch.no_grad()
def reconstruct(model, img):
    h, w = img.shape[:2]
    ph, pw = (-h) % 8, (-w) % 8
    x = torch.from_numpy(np.pad(img, ((0, ph), (0, pw), (0, 0)), mode='reflect')).float().div(255)
    y = model(x.permute(2, 0, 1)[None])[0].permute(1, 2, 0)[:h, :w]
    return (y.clamp(0, 1) * 255).round().byte().numpy()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--variants', default='ldm4,ldm16,gan8')
    a = ap.parse_args()
    torch.set_num_threads(int(os.environ.get('TORCH_THREADS', '1')))
    seed_all(0)
    with open(os.path.join(CACHE, 'train.pkl'), 'rb') as f:
        items = [it for it in pickle.load(f) if it['label'] == 'real']
    for v in a.variants.split(','):
        latent, up = VARIANTS[v]
        model = AE(latent, up)
        model.load_state_dict(torch.load(os.path.join(CACHE, 'ae', f'{v}.pt')))
        model.eval()
        t0 = time.time()
        out, psnr = {}, []
        for it in items:
            out[it['name']] = reconstruct(model, it['img'])
            mse = np.mean((out[it['name']].astype(np.float32) - it['img'].astype(np.float32)) ** 2)
            psnr.append(10 * np.log10(255 ** 2 / max(mse, 1e-6)))
        with open(os.path.join(CACHE, f'twins_{v}.pkl'), 'wb') as f:
            pickle.dump(out, f, protocol=4)
        print(f'{v}: {len(out)} twins, mean PSNR {np.mean(psnr):.2f} dB, {time.time() - t0:.0f}s', flush=True)


if __name__ == '__main__':
    main()
