# The "not a photograph" guard's features, computed exactly as src/analysis/photo-guard.ts computes them (a parity
# test holds the two together): from the decoded RGB pixels at native size, on 8x8 luma blocks of the JPEG grid,
# evenly strided down to at most 4096 blocks.
#   flat   share of blocks whose luma range is <= 3 (a flat fill: UI backgrounds, graphics, page margins)
#   step   among blocks with a strong edge (range >= 48), the share whose largest neighbour-to-neighbour step is
#          >= 0.6 x the range (a hard edge: text, rules, vector art; lenses blur photographic edges over pixels)
#   strong share of blocks with a strong edge
#   top4   share of the sampled pixels in the 4 most frequent colours at 4 bits per channel
import math

import numpy as np

MAX_BLOCKS = 4096


def features(rgb):
    rgb = np.asarray(rgb, dtype=np.uint8)
    H, W = rgb.shape[:2]
    bh, bw = H // 8, W // 8
    if bh == 0 or bw == 0:
        return None
    stride = max(1, math.ceil(math.sqrt(bh * bw / MAX_BLOCKS)))
    rows = np.arange(0, bh, stride)
    cols = np.arange(0, bw, stride)
    # blocks: (nr, nc, 8, 8, 3)
    b = rgb[:bh * 8, :bw * 8].reshape(bh, 8, bw, 8, 3).transpose(0, 2, 1, 3, 4)[rows][:, cols]
    b = b.reshape(-1, 8, 8, 3).astype(np.int32)
    y = (77 * b[..., 0] + 150 * b[..., 1] + 29 * b[..., 2] + 128) >> 8
    rng = y.max((1, 2)) - y.min((1, 2))
    flat = rng <= 3
    strong = rng >= 48
    d = np.maximum(np.abs(np.diff(y, axis=2)).max((1, 2)), np.abs(np.diff(y, axis=1)).max((1, 2)))
    step = strong & (5 * d >= 3 * rng)
    q = ((b[..., 0] >> 4) << 8) | ((b[..., 1] >> 4) << 4) | (b[..., 2] >> 4)
    counts = np.bincount(q.ravel(), minlength=4096)
    top4 = np.sort(counts)[-4:].sum() / q.size
    n = len(rng)
    return dict(flat=float(flat.sum() / n), step=float(step.sum() / max(1, strong.sum())), strong=float(strong.sum() / n),
                top4=float(top4), blocks=int(n))


NAMES = ('flat', 'step', 'strong', 'top4')


def vector(f):
    return np.array([f[k] for k in NAMES], dtype=np.float64)
