# Exports a trained detector to models/veracity-detector/: model.onnx (NPR residual inside the graph, dynamic
# batch), manifest.json (the product contract, thresholds from evaluate.py), parity.json (PyTorch scores of the
# generated fixtures) and eval-results.json; also (re)generates the small fixture PNGs in test/fixtures/model/.
import argparse
import hashlib
import json
import os
import shutil

import numpy as np
import onnx
import torch
from PIL import Image, ImageDraw

from common import (HEATMAP_MAX_TILES, MAX_TILES, MEAN, REPO, RUNS, SHIP, STD, STRIDE, TILE, TOP_K, LICENCES, VAL_SOURCES,
                    Detector, load_rgb, normalise, save_json, score_image, seed_all)

FIXTURES = os.path.join(REPO, 'test', 'fixtures', 'model')
VERSION = '0.2.0'


def make_fixtures():
    """Small synthetic images made here (never dataset files): noise, drawn shapes, nearest-up-sampled noise
    (a strong up-sampling trace) and drawn shapes passed through one of our autoencoders."""
    os.makedirs(FIXTURES, exist_ok=True)
    rng = np.random.default_rng(1234)
    out = {}
    out['noise-96.png'] = rng.integers(0, 256, (96, 96, 3), dtype=np.uint8)
    im = Image.new('RGB', (160, 128))
    d = ImageDraw.Draw(im)
    for y in range(128):
        d.line([(0, y), (159, y)], fill=(40 + y, 90, 200 - y))
    d.ellipse([20, 20, 90, 100], fill=(220, 180, 40))
    d.rectangle([100, 30, 150, 110], fill=(30, 160, 90))
    shapes = np.asarray(im, dtype=np.uint8)
    out['shapes-160x128.png'] = shapes
    small = rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)
    out['upsampled-noise-128.png'] = small.repeat(2, 0).repeat(2, 1)
    ae_path = os.path.join(os.path.dirname(__file__), '.cache', 'ae', 'ldm16.pt')
    if os.path.exists(ae_path):
        from train_ae import AE, VARIANTS
        from make_twins import reconstruct
        ae = AE(*VARIANTS['ldm16'])
        ae.load_state_dict(torch.load(ae_path))
        ae.eval()
        big = np.asarray(Image.fromarray(shapes).resize((240, 192), Image.BICUBIC), dtype=np.uint8)
        noisy = np.clip(big.astype(np.int16) + rng.integers(-12, 13, big.shape), 0, 255).astype(np.uint8)
        out['reconstructed-shapes-240x192.png'] = reconstruct(ae, noisy)
    for name, arr in out.items():
        Image.fromarray(arr).save(os.path.join(FIXTURES, name), optimize=True)
    return sorted(out)


def sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--name', required=True)
    a = ap.parse_args()
    torch.set_num_threads(1)
    seed_all(0)
    ck = torch.load(os.path.join(RUNS, a.name, 'model.pt'))
    model = Detector(ck['mode'], ck['width'])
    model.load_state_dict(ck['state'])
    model.eval()
    ev_path = os.path.join(RUNS, a.name, 'eval.json')
    if not os.path.exists(ev_path):
        ev_path = os.path.join(RUNS, a.name, 'eval-quick.json')
    with open(ev_path) as f:
        ev = json.load(f)

    os.makedirs(SHIP, exist_ok=True)
    onnx_path = os.path.join(SHIP, 'model.onnx')
    dummy = torch.zeros(2, 3, TILE, TILE)
    torch.onnx.export(model, dummy, onnx_path, input_names=['tiles'], output_names=['logit'],
                      dynamic_axes={'tiles': {0: 'batch'}, 'logit': {0: 'batch'}}, opset_version=13,
                      do_constant_folding=True)
    onnx.checker.check_model(onnx.load(onnx_path))

    names = make_fixtures()
    fixtures = []
    for n in names:
        img = load_rgb(os.path.join(FIXTURES, n))
        score, probs, origins = score_image(model, img)
        with torch.no_grad():
            tl = float(model(normalise(img[None, :TILE, :TILE]))[0, 0])
        fixtures.append(dict(file=n, width=int(img.shape[1]), height=int(img.shape[0]), tiles=len(origins),
                             topLeftLogit=tl, topLeftProbability=float(1 / (1 + np.exp(-tl))),
                             tileProbabilities=[float(p) for p in probs], fileScore=score))
    save_json(os.path.join(SHIP, 'parity.json'), dict(
        note='PyTorch outputs recorded at export for test/fixtures/model/*.png; onnxruntime-node must agree within 1e-4',
        model=a.name, fixtures=fixtures))

    args = ck['args']
    srcs = sorted({(lab, s) for (lab, s) in LICENCES if (lab, s) not in VAL_SOURCES and
                   (not args.get('permissive') or LICENCES[(lab, s)][1]) and
                   (lab == 'real' or not args.get('no_gen'))})
    manifest = dict(
        name='veracity-detector',
        version=VERSION,
        file='model.onnx',
        sha256=sha256(onnx_path),
        input=dict(name='tiles', layout='NCHW', channels=3, colorSpace='sRGB', dtype='float32', tileSize=TILE,
                   mean=list(MEAN), std=list(STD), batchDynamic=True),
        output=dict(name='logit', kind='logit',
                    meaning='shape [N, 1]: logit of P(tile is AI-generated or AI-reconstructed); sigmoid gives the '
                            'probability. The NPR residual (tile minus its 2x nearest down/up-sampled copy) is '
                            'computed inside the graph.'),
        tiling=dict(stride=STRIDE, maxTiles=MAX_TILES, heatmapMaxTiles=HEATMAP_MAX_TILES),
        aggregation=dict(method='top_k_mean', k=TOP_K,
                         description=f'Tiles of {TILE}x{TILE} at native resolution with origins (i*{STRIDE}, '
                                     f'j*{STRIDE}) fully inside the image, row-major; when the grid has N > '
                                     f'{MAX_TILES} tiles, the tiles at indices floor(i*N/{MAX_TILES}), i = 0..'
                                     f'{MAX_TILES - 1}, make the file score. File score = mean of the {TOP_K} highest tile '
                                     f'probabilities (all of them when fewer). Images under {TILE}px on a side '
                                     f'have no tile. The heatmap shows up to {HEATMAP_MAX_TILES} tiles sampled the '
                                     f'same way (floor(i*N/{HEATMAP_MAX_TILES})), a superset of those; the others '
                                     f'do not change the file score.'),
        thresholds=ev['thresholds'],
        training=dict(
            sources=[f'train/{lab}/{s}' for (lab, s) in srcs] +
                    ([f'self-made reconstructions of the authentic sources above by autoencoders '
                      f'{args["twins"]} trained here'] if args.get('twins') else []),
            licences=sorted({f'{lab}/{s}: {LICENCES[(lab, s)][0]}' for (lab, s) in srcs}),
            command='cd models/training && ./reproduce.sh'),
    )
    save_json(os.path.join(SHIP, 'manifest.json'), manifest)
    shutil.copy(ev_path, os.path.join(SHIP, 'eval-results.json'))
    print('exported', onnx_path, os.path.getsize(onnx_path), 'bytes', manifest['sha256'])


if __name__ == '__main__':
    main()
