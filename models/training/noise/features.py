# Noise-residual features of one decoded image (uint8 HxWx3, native resolution: nothing is resized before the
# features). Computed on N_CROPS random 256-px crops (positions drawn from a seeded RNG keyed by the file, so the same
# file gives the same crops); each crop gives CROP_FEATURES numbers, and the image's vector is their mean and std
# across crops. Cheap enough for a 12-MP file on one core (the decode costs more than the features).
import hashlib
import random

import numpy as np

CROP = 256
N_CROPS = 4
LUMA = np.array([0.299, 0.587, 0.114], np.float32)


def _names():
    n = []
    for c in 'RGB':
        n += ['lap_logstd_' + c, 'lap_kurt_' + c, 'hh_logsigma_' + c]
    n += ['xcorr_RG', 'xcorr_RB', 'xcorr_GB']
    for c in 'RGB':
        n += ['cfa_diag_' + c, 'cfa_maxmin_' + c]
    for k in (2, 4, 8):
        n += ['spec_peak%d_mean' % k, 'spec_peak%d_max' % k]
    n += ['jpeg_grid_h', 'jpeg_grid_v']
    n += ['nlf_bin%d' % i for i in range(5)] + ['nlf_slope']
    n += ['blk_logstd_q%02d' % q for q in (5, 25, 50, 75, 95)] + ['blk_flat_frac']
    n += ['sat_hi', 'sat_lo', 'gray_frac']
    n += ['med_logstd_Y', 'med_kurt_Y']
    n += ['lsb_even_frac', 'hist_gap_frac']
    return n


CROP_FEATURES = _names()
FEATURES = [s + '_mean' for s in CROP_FEATURES] + [s + '_std' for s in CROP_FEATURES]


def _kurt(x):
    x = x.ravel()
    x = x - x.mean()
    x2 = x * x
    v = float(x2.mean())
    if v < 1e-10:
        return 0.0
    return float(np.log(max(0.1, float((x2 * x2).mean()) / (v * v))))  # log kurtosis, Gaussian: log 3


def _lap(x):
    """4-neighbour residual x - mean(neighbours) on the interior (an SRM-like second-order high-pass)."""
    return x[1:-1, 1:-1] - 0.25 * (x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:])


def _median5(Y):
    """Median of the 5-pixel cross (interior), by a min/max network: cheaper than a 3x3 median filter."""
    a, b, c, d, e = Y[1:-1, 1:-1], Y[:-2, 1:-1], Y[2:, 1:-1], Y[1:-1, :-2], Y[1:-1, 2:]
    # median of 5 = max(min(max(a,b), max(c,d)), ...) via the standard 6-comparison selection
    lo1, hi1 = np.minimum(a, b), np.maximum(a, b)
    lo2, hi2 = np.minimum(c, d), np.maximum(c, d)
    # drop the smallest of the two minima and the largest of the two maxima, then median of 3 with e
    lo = np.maximum(lo1, lo2)
    hi = np.minimum(hi1, hi2)
    return np.maximum(np.minimum(lo, hi), np.minimum(np.maximum(lo, hi), e))


def _peaks(P, k):
    """Log ratio of the power at the (N/k)-periodic positions to the median of its 5x5 neighbourhood (circular)."""
    H, W = P.shape
    if (H % k) or (W % k):
        return 0.0, 0.0
    ii, jj = np.meshgrid(np.arange(k), np.arange(k), indexing='ij')
    keep = (ii + jj) > 0
    ys, xs = (ii[keep] * H) // k, (jj[keep] * W) // k
    d = np.arange(-2, 3)
    dy, dx = np.meshgrid(d, d, indexing='ij')
    ring = (dy != 0) | (dx != 0)
    nb = P[(ys[:, None] + dy[ring][None]) % H, (xs[:, None] + dx[ring][None]) % W]
    vals = np.log(P[ys, xs] + 1e-8) - np.log(np.median(nb, axis=1) + 1e-8)
    return float(vals.mean()), float(vals.max())


def _grid(Y, axis):
    d = np.abs(np.diff(Y, axis=axis)).mean(axis=1 - axis)  # mean |diff| per boundary position
    n = (len(d) // 8) * 8
    if n < 16:
        return 0.0
    ph = d[:n].reshape(-1, 8).mean(0)
    return float(np.log(ph.max() + 1e-3) - np.log(np.median(ph) + 1e-3))


def crop_features(c8):
    """c8: uint8 crop hxwx3 (h, w >= 16). -> list of len(CROP_FEATURES)."""
    x = c8.astype(np.float32)
    xc = [np.ascontiguousarray(x[:, :, i]) for i in range(3)]
    f = []
    laps = [_lap(xc[i]) for i in range(3)]
    h2, w2 = (x.shape[0] // 2) * 2, (x.shape[1] // 2) * 2
    for i in range(3):
        r = laps[i]
        f.append(float(np.log(r.std() + 1e-3)))
        f.append(_kurt(r))
        xi = xc[i]
        a = xi[:h2:2, :w2:2]; b = xi[:h2:2, 1:w2:2]; c = xi[1:h2:2, :w2:2]; d = xi[1:h2:2, 1:w2:2]
        hh = (a - b - c + d) / 2
        f.append(float(np.log(np.median(np.abs(hh)) / 0.6745 + 1e-2)))
    for i, j in ((0, 1), (0, 2), (1, 2)):
        a, b = laps[i].ravel(), laps[j].ravel()
        sa, sb = a.std(), b.std()
        f.append(float(((a - a.mean()) * (b - b.mean())).mean() / (sa * sb)) if sa > 1e-6 and sb > 1e-6 else 1.0)
    for i in range(3):  # demosaicing traces: residual energy by 2x2 phase
        r2 = laps[i] ** 2
        hh, ww = (r2.shape[0] // 2) * 2, (r2.shape[1] // 2) * 2
        v = [r2[p:hh:2, q:ww:2].mean() + 1e-4 for p in (0, 1) for q in (0, 1)]
        f.append(float(abs(np.log((v[0] + v[3]) / (v[1] + v[2])))))
        f.append(float(np.log(max(v) / min(v))))
    Y = LUMA[0] * xc[0] + LUMA[1] * xc[1] + LUMA[2] * xc[2]
    med = Y[1:-1, 1:-1] - _median5(Y)
    hh, ww = (med.shape[0] // 8) * 8, (med.shape[1] // 8) * 8
    P = np.abs(np.fft.fft2(med[:hh, :ww])) ** 2
    for k in (2, 4, 8):
        f += list(_peaks(P, k))
    f.append(_grid(Y, 1))
    f.append(_grid(Y, 0))
    # noise level vs brightness: 8x8 blocks of the luma residual; per brightness bin the 20th percentile of the
    # blocks' residual std (flat blocks ~ sensor noise)
    rY = _lap(Y)
    bh, bw = rY.shape[0] // 8, rY.shape[1] // 8
    rb = rY[:bh * 8, :bw * 8].reshape(bh, 8, bw, 8)
    bs = np.sqrt((rb ** 2).mean(axis=(1, 3)) - rb.mean(axis=(1, 3)) ** 2 + 1e-6).ravel()
    bm = Y[1:1 + bh * 8, 1:1 + bw * 8].reshape(bh, 8, bw, 8).mean(axis=(1, 3)).ravel()
    lbs = np.log(bs + 0.05)
    glob = float(np.percentile(lbs, 20))
    nl, cs = [], []
    for bi, (lo, hi) in enumerate(((0, 40), (40, 90), (90, 150), (150, 210), (210, 256))):
        m = (bm >= lo) & (bm < hi)
        if m.sum() >= 8:
            v = float(np.percentile(lbs[m], 20))
            nl.append(v)
            cs.append(((lo + hi) / 2, v))
        else:
            nl.append(glob)
    f += nl
    if len(cs) >= 2:
        cs = np.array(cs)
        f.append(float(np.polyfit(cs[:, 0] / 255.0, cs[:, 1], 1)[0]))
    else:
        f.append(0.0)
    f += [float(v) for v in np.percentile(lbs, (5, 25, 50, 75, 95))]
    f.append(float((bs < 0.3).mean()))
    R, G, B = c8[:, :, 0], c8[:, :, 1], c8[:, :, 2]
    f.append(float((np.maximum(np.maximum(R, G), B) >= 254).mean()))
    f.append(float((np.minimum(np.minimum(R, G), B) <= 1).mean()))
    f.append(float(((R == G) & (G == B)).mean()))
    f.append(float(np.log(med.std() + 1e-3)))
    f.append(_kurt(med))
    hist = np.bincount(G.ravel(), minlength=256)
    f.append(float(hist[0::2].sum() / max(1, hist.sum())))
    nz = np.nonzero(hist)[0]
    if len(nz) > 2:
        inner = hist[nz[0]:nz[-1] + 1]
        f.append(float((inner == 0).mean()))  # empty levels inside the used range (contrast stretch / gamma combs)
    else:
        f.append(0.0)
    return f


def crop_boxes(h, w, key, n=N_CROPS, size=CROP):
    r = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], 'big'))
    ch, cw = min(size, h), min(size, w)
    return [(r.randint(0, h - ch), r.randint(0, w - cw), ch, cw) for _ in range(n)]


def image_features(arr, key):
    """arr: uint8 HxWx3 at native resolution. -> float32 vector of len(FEATURES)."""
    h, w = arr.shape[:2]
    if h < 16 or w < 16:
        arr = np.pad(arr, ((0, max(0, 16 - h)), (0, max(0, 16 - w)), (0, 0)), mode='reflect')
        h, w = arr.shape[:2]
    rows = np.array([crop_features(np.ascontiguousarray(arr[y:y + ch, x:x + cw]))
                     for y, x, ch, cw in crop_boxes(h, w, key)], dtype=np.float64)
    rows = np.nan_to_num(rows, nan=0.0, posinf=10.0, neginf=-10.0)

    return np.concatenate([rows.mean(0), rows.std(0)]).astype(np.float32)
