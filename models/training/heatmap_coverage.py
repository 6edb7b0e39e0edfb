# Does scoring more tiles (the heatmap's HEATMAP_MAX_TILES) find a small AI region in a large photo more often than
# the file score's MAX_TILES? No evaluation set has large authentic photos (all are <= 384 px), so the hosts are
# synthetic: 12 x 12 mosaics of 192-px centre crops of the held-out validation authentic files (2304 x 2304 px,
# 1,225 grid tiles, so 64 tiles are 5 % of the grid and 256 are 21 %, close to a 12-MP photo's 2.2 % and 9 %).
# Into each, one rectangle of 0.5-2.5 % of the area is blended (2-px soft edge): either the same place in the
# mosaic of the cells' ldm16 reconstructions, or a crop of a modern/ AI image. A hit: the top-scoring tile of the
# budget has at least a quarter of its area inside the rectangle (as in evaluate.py). Writes
# ../veracity-detector/heatmap-coverage.json. Usage: heatmap_coverage.py --name v3-grain [--n 40]
import argparse
import os
import pickle

import numpy as np
import torch
from PIL import Image, ImageFilter

from common import (CACHE, HEATMAP_MAX_TILES, MAX_TILES, SHIP, STRIDE, TILE, VAL_SOURCES, normalise, sample_indices,
                    save_json, seed_all, tile_in_region)
from evaluate import load_model

CELL, GRID = 192, 12


def crop(img):
    h, w = img.shape[:2]
    y, x = (h - CELL) // 2, (w - CELL) // 2
    return img[y:y + CELL, x:x + CELL]


@torch.no_grad()
def run(model, hosts, twins, modern_ai, donor_kind, n, rng):
    side = CELL * GRID
    ys = list(range(0, side - TILE + 1, STRIDE))
    grid = [(y, x) for y in ys for x in ys]
    heat = sample_indices(len(grid), HEATMAP_MAX_TILES)
    budgets = {MAX_TILES: set(sample_indices(len(grid), MAX_TILES)), HEATMAP_MAX_TILES: set(heat)}
    out = {b: dict(hits=0, touched=0, chance=0.0) for b in budgets}
    for _ in range(n):
        picks = rng.integers(len(hosts), size=GRID * GRID)
        host = np.zeros((side, side, 3), np.uint8)
        recon = np.zeros_like(host)
        for c, i in enumerate(picks):
            y, x = (c // GRID) * CELL, (c % GRID) * CELL
            host[y:y + CELL, x:x + CELL] = crop(hosts[i]['img'])
            recon[y:y + CELL, x:x + CELL] = crop(twins[hosts[i]['name']])
        frac = rng.uniform(0.005, 0.025)
        aspect = rng.uniform(0.6, 1.6)
        rh = int(min(384, round(np.sqrt(frac * side * side * aspect))))
        rw = int(min(384, round(frac * side * side / rh)))
        y0, x0 = int(rng.integers(0, side - rh + 1)), int(rng.integers(0, side - rw + 1))
        if donor_kind == 'reconstructed':
            donor = recon
        else:
            cands = [d for d in modern_ai if d.shape[0] >= rh and d.shape[1] >= rw]
            d = cands[rng.integers(len(cands))]
            donor = host.copy()
            donor[y0:y0 + rh, x0:x0 + rw] = d[:rh, :rw]
        m = np.zeros((side, side), np.uint8)
        m[y0:y0 + rh, x0:x0 + rw] = 255
        m = np.asarray(Image.fromarray(m).filter(ImageFilter.GaussianBlur(2)), np.float32)[..., None] / 255
        mixed = np.clip(np.round(host * (1 - m) + donor * m), 0, 255).astype(np.uint8)
        tiles = np.stack([mixed[grid[i][0]:grid[i][0] + TILE, grid[i][1]:grid[i][1] + TILE] for i in heat])
        probs = torch.sigmoid(torch.cat([model(normalise(tiles[j:j + 64])).view(-1) for j in range(0, len(tiles), 64)])).numpy()
        score = dict(zip(heat, probs))
        for b, idx in budgets.items():
            idx = sorted(idx)
            inside = [tile_in_region(*grid[i], y0, x0, rh, rw) for i in idx]
            top = int(np.argmax([score[i] for i in idx]))
            out[b]['hits'] += int(inside[top])
            out[b]['touched'] += int(any(inside))
            out[b]['chance'] += float(np.mean(inside))
    return {f'{b} tiles': dict(top_tile_in_region=v['hits'] / n, some_tile_in_region=v['touched'] / n,
                               chance=v['chance'] / n, n=n) for b, v in out.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--name', required=True)
    ap.add_argument('--n', type=int, default=40)
    a = ap.parse_args()
    torch.set_num_threads(int(os.environ.get('TORCH_THREADS', '1')))
    seed_all(0)
    rng = np.random.default_rng(0)
    model, _ = load_model(a.name)
    with open(os.path.join(CACHE, 'train.pkl'), 'rb') as f:
        hosts = [it for it in pickle.load(f) if (it['label'], it['source']) in VAL_SOURCES and it['label'] == 'real']
    hosts = [it for it in hosts if min(it['img'].shape[:2]) >= CELL]
    with open(os.path.join(CACHE, 'twins_ldm16.pkl'), 'rb') as f:
        twins = pickle.load(f)
    with open(os.path.join(CACHE, 'modern.pkl'), 'rb') as f:
        modern_ai = [it['img'] for it in pickle.load(f) if it['label'] == 'ai']
    res = dict(
        note='synthetic 2304-px mosaics of held-out authentic crops with one blended region of '
             '0.5-2.5 % of the area; top tile = highest-scoring tile of the budget; see heatmap_coverage.py',
        model=a.name, hosts=len(hosts), grid_tiles=((CELL * GRID - TILE) // STRIDE + 1) ** 2,
        reconstructed_region=run(model, hosts, twins, modern_ai, 'reconstructed', a.n, rng),
        modern_ai_region=run(model, hosts, twins, modern_ai, 'modern_ai', a.n, rng))
    save_json(os.path.join(SHIP, 'heatmap-coverage.json'), res)
    print(res)


if __name__ == '__main__':
    main()
