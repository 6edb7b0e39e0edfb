# Shared pieces of the detector's training, evaluation and export: paths, data splits, the model, and the
# product's exact tiling + aggregation, so the card's figures are computed the way the app computes them.
import glob
import io
import json
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, '..', '..'))
DATA = os.environ.get('VERACITY_DATASETS', os.path.abspath(os.path.join(REPO, '..', 'shared', 'datasets')))
CACHE = os.path.join(HERE, '.cache')
RUNS = os.path.join(HERE, 'runs')
SHIP = os.path.join(REPO, 'models', 'veracity-detector')

IMAGE_EXT = ('.jpg', '.jpeg', '.png', '.webp', '.tif', '.tiff')

# By-source validation split of train/: whole sources held out of detector (and autoencoder) training.
# ml72 ai/real are a format-matched JPEG pair, so they measure the classes without the format leak.
VAL_SOURCES = {
    ('ai', 'gen_sd2'), ('ai', 'gen_kolors'), ('ai', 'ml72_playground'),
    ('real', 'exif_samples'), ('real', 'kodak24'), ('real', 'ml72_playground'),
}

# Licence of each train/ source (train/README.md). 'permissive' = usable commercially with attribution.
LICENCES = {
    ('ai', 'sd15_cheatsheet'): ('MIT', True),
    ('ai', 'cnndetection_gan'): ('CC BY-NC-SA 4.0', False),
    ('real', 'cnndetection_real'): ('CC BY-NC-SA 4.0', False),
    ('ai', 'sentry_viz'): ('research only (Sentry datasets)', False),
    ('ai', 'ml72_playground'): ('MIT', True),
    ('real', 'ml72_playground'): ('MIT', True),
    ('ai', 'gen_ldm'): ('MIT', True),
    ('ai', 'gen_sd1'): ('CreativeML Open RAIL-M', True),
    ('ai', 'gen_sd2'): ('MIT code + Open RAIL++-M model', True),
    ('ai', 'gen_dit'): ('CC BY-NC 4.0', False),
    ('ai', 'gen_deepfloyd_if'): ('DeepFloyd IF model licence', False),
    ('ai', 'gen_kandinsky'): ('Apache-2.0', True),
    ('ai', 'gen_kolors'): ('Apache-2.0 + Kolors model licence', True),
    ('real', 'imagenet_samples'): ('ImageNet terms (non-commercial research)', False),
    ('real', 'dreambooth'): ('CC BY 4.0', True),
    ('real', 'exif_samples'): ('CC BY-SA 4.0', True),
    ('real', 'bsd100_hr'): ('research dataset, no licence file', False),
    ('real', 'urban100_hr'): ('research dataset, no licence file', False),
    ('real', 'set14_hr'): ('research dataset, no licence file', False),
    ('real', 'sunhays80_hr'): ('research dataset, no licence file', False),
    ('real', 'kodak24'): ('Kodak suite (free use)', True),
    ('real', 'mcmaster18'): ('research dataset, no licence file', False),
    ('real', 'adain_paintings'): ('MIT (artworks mostly public domain)', True),
}

# The product contract (also written into manifest.json).
# VERACITY_TILE / VERACITY_STRIDE exist only for the larger-crop experiment of the card's "What was tried" table.
TILE = int(os.environ.get('VERACITY_TILE', '96'))
STRIDE = int(os.environ.get('VERACITY_STRIDE', '64'))
MAX_TILES = 64
# The product scores up to this many tiles (same even sampling, a multiple of MAX_TILES so that the MAX_TILES tiles
# behind the file score are among them) for the heatmap only; figures and thresholds use MAX_TILES.
HEATMAP_MAX_TILES = 256
TOP_K = 3
MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)


def list_files(split_dir):
    """[(label, source, path)] for every image under split_dir/{ai,real}/<source>/."""
    out = []
    for label in ('ai', 'real'):
        for src_dir in sorted(glob.glob(os.path.join(DATA, split_dir, label, '*'))):
            src = os.path.basename(src_dir)
            for p in sorted(os.listdir(src_dir)):
                if p.lower().endswith(IMAGE_EXT):
                    out.append((label, src, os.path.join(src_dir, p)))
    return out


def load_rgb(path):
    """Decode to sRGB RGB uint8 HxWx3, metadata ignored (what the product's sharp .removeAlpha().raw() gives)."""
    with Image.open(path) as im:
        im.load()
        if im.mode in ('RGBA', 'LA', 'P'):
            im = im.convert('RGBA').convert('RGB') if im.mode != 'P' else im.convert('RGB')
        elif im.mode != 'RGB':
            im = im.convert('RGB')
        return np.asarray(im, dtype=np.uint8).copy()


# ---------------------------------------------------------------- the product's tiling and aggregation

def tile_origins(h, w, tile=TILE, stride=STRIDE, max_tiles=MAX_TILES):
    """Row-major grid origins (y, x) = (i*stride, j*stride) with the whole tile inside the image;
    when the grid has N > max_tiles tiles, keep the tiles at indices floor(i*N/max_tiles), i = 0..max_tiles-1.
    An image smaller than a tile on a side yields no tile (the pipeline pads or refuses it)."""
    if h < tile or w < tile:
        return []
    ys = list(range(0, h - tile + 1, stride))
    xs = list(range(0, w - tile + 1, stride))
    grid = [(y, x) for y in ys for x in xs]
    return [grid[i] for i in sample_indices(len(grid), max_tiles)]


def sample_indices(n, k):
    """The even sample of a grid of n tiles down to k: indices floor(i*n/k), i = 0..k-1 (all of them when n <= k)."""
    return list(range(n)) if n <= k else [(i * n) // k for i in range(k)]


def tile_in_region(ty, tx, y, x, rh, rw, tile=TILE):
    """The localisation criterion: at least a quarter of the tile at (ty, tx) lies in the rectangle (y, x, rh, rw)."""
    oy = max(0, min(ty + tile, y + rh) - max(ty, y))
    ox = max(0, min(tx + tile, x + rw) - max(tx, x))
    return oy * ox / (tile * tile) >= 0.25


def normalise(tiles_u8):
    """uint8 NxHxWx3 -> float32 NCHW, x = (pixel/255 - mean)/std."""
    x = torch.from_numpy(tiles_u8).float().div_(255.0).permute(0, 3, 1, 2)
    m = torch.tensor(MEAN).view(1, 3, 1, 1)
    s = torch.tensor(STD).view(1, 3, 1, 1)
    return ((x - m) / s).contiguous()


def top_k_mean(probs, k=TOP_K):
    p = np.sort(np.asarray(probs, dtype=np.float64))[::-1]
    return float(p[:min(k, len(p))].mean())


def image_tiles(img, tile=TILE, stride=STRIDE, max_tiles=MAX_TILES):
    origins = tile_origins(img.shape[0], img.shape[1], tile, stride, max_tiles)
    if not origins:  # eval only: centre-pad small images by reflection so they still get one tile
        ph, pw = max(0, tile - img.shape[0]), max(0, tile - img.shape[1])
        img = np.pad(img, ((ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)), mode='reflect')
        origins = tile_origins(img.shape[0], img.shape[1], tile, stride, max_tiles)
    return origins, np.stack([img[y:y + tile, x:x + tile] for (y, x) in origins])


@torch.no_grad()
def score_image(model, img, batch=64):
    """(file score, tile probabilities, origins), computed exactly like the product."""
    origins, tiles = image_tiles(img)
    logits = []
    for i in range(0, len(tiles), batch):
        logits.append(model(normalise(tiles[i:i + batch])).view(-1))
    probs = torch.sigmoid(torch.cat(logits)).numpy()
    return top_k_mean(probs), probs, origins


# ---------------------------------------------------------------- the detector

class NPRResidual(nn.Module):
    """x - up(down(x)) with 2x nearest sampling (Tan et al. 2024): inside the graph, so the product feeds plain tiles."""

    def forward(self, x):
        d = x[:, :, ::2, ::2]
        u = F.interpolate(d, scale_factor=2.0, mode='nearest')
        return x - u


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Spectrum(nn.Module):
    """Log-magnitude DFT of a tile's grey high-pass residual (x minus its 3x3 mean), as fixed cosine/sine matrix
    products so it exports to plain ONNX MatMuls; periodic up-sampling leaves peaks at multiples of n/8, n/4, n/2.
    Returns the n x (n/2+1) non-redundant half, flattened."""

    def __init__(self, n=96):
        super().__init__()
        k = torch.arange(n, dtype=torch.float64)
        ang = 2 * np.pi * torch.outer(k, k) / n
        self.register_buffer('C', torch.cos(ang).float())
        self.register_buffer('S', torch.sin(ang).float())
        self.half = n // 2 + 1

    def forward(self, x):
        g = x.mean(1, keepdim=True)
        g = g - F.avg_pool2d(F.pad(g, (1, 1, 1, 1), mode='replicate'), 3, 1)
        g = g[:, 0]
        re = self.C @ g @ self.C - self.S @ g @ self.S
        im = self.C @ g @ self.S + self.S @ g @ self.C
        mag = torch.log(1.0 + torch.sqrt(re * re + im * im + 1e-6))
        return mag[:, :, :self.half].flatten(1)


class Detector(nn.Module):
    """Small CNN on a 96x96 tile. mode='npr': NPR residual only; 'npr+rgb': residual and the tile itself;
    'npr+fft': the NPR CNN plus a linear branch on the tile's residual spectrum (Spectrum)."""

    def __init__(self, mode='npr', width=32):
        super().__init__()
        self.mode = mode
        self.npr = NPRResidual()
        cin = 6 if mode == 'npr+rgb' else 3
        w = width
        self.features = nn.Sequential(
            conv_bn(cin, w // 2), conv_bn(w // 2, w, 2),          # 96 -> 48
            conv_bn(w, w), conv_bn(w, 2 * w, 2),                   # 48 -> 24
            conv_bn(2 * w, 2 * w), conv_bn(2 * w, 4 * w, 2),       # 24 -> 12
            conv_bn(4 * w, 4 * w),
        )
        extra = 0
        if mode == 'npr+fft':
            self.spectrum = Spectrum(TILE)
            self.spec_fc = nn.Sequential(nn.BatchNorm1d(TILE * (TILE // 2 + 1)), nn.Linear(TILE * (TILE // 2 + 1), 32),
                                         nn.ReLU(inplace=True))
            extra = 32
        self.head = nn.Linear(8 * w + extra, 1)

    def forward(self, x):
        r = self.npr(x)
        h = torch.cat([r * 4.0, x], 1) if self.mode == 'npr+rgb' else r * 4.0
        f = self.features(h)
        f = torch.cat([f.mean(dim=(2, 3)), f.amax(dim=(2, 3))], 1)
        if self.mode == 'npr+fft':
            f = torch.cat([f, self.spec_fc(self.spectrum(x))], 1)
        return self.head(f)


# ---------------------------------------------------------------- metrics

def auc(scores_pos, scores_neg):
    """ROC AUC by the rank statistic (ties count half)."""
    pos = np.asarray(scores_pos, dtype=np.float64)
    neg = np.asarray(scores_neg, dtype=np.float64)
    if len(pos) == 0 or len(neg) == 0:
        return float('nan')
    allv = np.concatenate([pos, neg])
    order = allv.argsort(kind='mergesort')
    ranks = np.empty(len(allv))
    sv = allv[order]
    i = 0
    while i < len(sv):
        j = i
        while j + 1 < len(sv) and sv[j + 1] == sv[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1
        i = j + 1
    rp = ranks[:len(pos)].sum()
    return float((rp - len(pos) * (len(pos) + 1) / 2.0) / (len(pos) * len(neg)))


def jpeg(img, q):
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format='JPEG', quality=int(q))
    buf.seek(0)
    return np.asarray(Image.open(buf).convert('RGB'), dtype=np.uint8).copy()


def resize(img, f):
    h, w = img.shape[:2]
    nh, nw = max(8, int(round(h * f))), max(8, int(round(w * f)))
    return np.asarray(Image.fromarray(img).resize((nw, nh), Image.BICUBIC), dtype=np.uint8).copy()


def save_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        json.dump(obj, f, indent=2, sort_keys=False)
        f.write('\n')


def seed_all(s):
    random.seed(s)
    np.random.seed(s)
    torch.manual_seed(s)
