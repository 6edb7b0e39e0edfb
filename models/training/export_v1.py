# Exports a veracity-detector 1.0 checkpoint (EMA weights) to models/veracity-detector/: model.onnx (Haar DWT and NPR
# residual inside the graph, dynamic batch), manifest.json (the product contract, thresholds from card_v1.py's JSON,
# chosen on the validation split only), parity.json (PyTorch scores of test/fixtures/model/*.png, regenerated here)
# and eval-results.json (the card's figures and every validation / modern file score, for calibration-table.ts).
#   /usr/bin/python3 export_v1.py RUN --ckpt ema-03000.pt --card runs/RUN/card.json
# --keep-content: a new artefact network beside the shipped content branches (semantic.onnx, semantic2.onnx): only
# model.onnx, the manifest's artefact fields (sha256, tiling, aggregation, tileThresholds = the run's own card, the
# training sources gain the run's crop caches' sources) and parity.json's artefact fixtures change; the content
# entries, fusion, thresholds and eval-results.json stay for semantic/ship_v11.py --keep-semantic --keep-semantic2,
# which refits them on the new network's scores.
import argparse
import glob
import json
import os

import numpy as np
import onnx
import torch
from PIL import Image, ImageDraw

import common
import card_v1
from export import sha256  # 0.2.0's exporter: the same file digest the manifest carries
import eval_v1
from safe_model import SafeNet

FIXTURES = os.path.join(common.REPO, 'test', 'fixtures', 'model')
VERSION = '1.0.0'
TILE, STRIDE, HEAT = eval_v1.TILE, eval_v1.STRIDE, eval_v1.HEAT


def make_fixtures():
    """Synthetic images made here (never dataset files): noise, drawn shapes, 2x nearest-up-sampled noise (a strong
    up-sampling trace, and zero high bands) and a larger drawn scene with grain that yields several tiles."""
    for old in glob.glob(os.path.join(FIXTURES, '*.png')):
        os.remove(old)
    os.makedirs(FIXTURES, exist_ok=True)
    rng = np.random.default_rng(1234)
    out = {}
    out['noise-192.png'] = rng.integers(0, 256, (192, 192, 3), dtype=np.uint8)
    im = Image.new('RGB', (320, 256))
    d = ImageDraw.Draw(im)
    for y in range(256):
        d.line([(0, y), (319, y)], fill=(40 + y // 2, 90, 200 - y // 2))
    d.ellipse([40, 40, 180, 200], fill=(220, 180, 40))
    d.rectangle([200, 60, 300, 220], fill=(30, 160, 90))
    shapes = np.asarray(im, dtype=np.uint8)
    out['shapes-320x256.png'] = shapes
    small = rng.integers(0, 256, (128, 128, 3), dtype=np.uint8)
    out['upsampled-noise-256.png'] = small.repeat(2, 0).repeat(2, 1)
    big = np.asarray(Image.fromarray(shapes).resize((480, 384), Image.BICUBIC), dtype=np.int16)
    out['grain-shapes-480x384.png'] = np.clip(big + rng.integers(-10, 11, big.shape), 0, 255).astype(np.uint8)
    for name, arr in out.items():
        Image.fromarray(arr).save(os.path.join(FIXTURES, name), optimize=True)
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('run')
    ap.add_argument('--ckpt', required=True)
    ap.add_argument('--card', required=True)
    ap.add_argument('--pixels-decide', action='store_true',
                    help='let a picture scored >= highAi decide ai_generated alone (manifest calibration.pixelsDecide)')
    ap.add_argument('--keep-content', action='store_true',
                    help='replace only the artefact network in the shipped manifest and parity.json (see the header)')
    ap.add_argument('--crops', default='', help='with --keep-content: the crop caches the run trained on, where its checkpoint names none')
    a = ap.parse_args()
    torch.set_num_threads(1)
    model, step = eval_v1.load_model(a.run, a.ckpt)
    card = json.load(open(a.card))
    k, max_tiles = card['k'], card['max_tiles']
    thr = card['thresholds']
    os.makedirs(common.SHIP, exist_ok=True)
    onnx_path = os.path.join(common.SHIP, 'model.onnx')
    dummy = torch.zeros(2, 3, TILE, TILE)
    torch.onnx.export(model, dummy, onnx_path, input_names=['tiles'], output_names=['logit'],
                      dynamic_axes={'tiles': {0: 'batch'}, 'logit': {0: 'batch'}}, opset_version=13,
                      do_constant_folding=True)
    onnx.checker.check_model(onnx.load(onnx_path))

    fixtures = []
    for n in make_fixtures():
        img = np.asarray(Image.open(os.path.join(FIXTURES, n)).convert('RGB'))
        h, w = img.shape[:2]
        grid = eval_v1.grid_origins(w, h)
        idx = eval_v1.sample_indices(len(grid), max_tiles)
        tiles = np.stack([img[y:y + TILE, x:x + TILE] for x, y in (grid[i] for i in idx)])
        x = (torch.from_numpy(tiles).float().div(255).permute(0, 3, 1, 2) - 0.5) / 0.25
        with torch.no_grad():
            logits = model(x).flatten().double().numpy()
        probs = 1 / (1 + np.exp(-logits))
        top = sorted(probs, reverse=True)[:min(k, len(probs))]
        fixtures.append(dict(file=n, width=w, height=h, tiles=len(idx), topLeftLogit=float(logits[0]),
                             topLeftProbability=float(probs[0]), tileProbabilities=[float(p) for p in probs],
                             fileScore=float(np.mean(top))))
    par_path = os.path.join(common.SHIP, 'parity.json')
    parity = json.load(open(par_path)) if a.keep_content else {}
    parity.update(note='PyTorch outputs recorded at export for test/fixtures/model/*.png; onnxruntime-node must agree within 1e-4',
                  model='%s@%s' % (a.run, a.ckpt), fixtures=fixtures)
    common.save_json(par_path, parity)
    if a.keep_content:
        keep_content(a, onnx_path, card)
        return

    idx = json.load(open(os.path.join(common.CACHE, 'crops1', 'index.json')))
    band = [thr['highAuthentic'], thr['highAi']]
    pooled = []  # the validation split the thresholds came from (val_tx + val_raw), as card_v1.py pooled it
    for name in ('val_tx', 'val_raw'):
        d = card_v1.load(a.run, name)
        if d:
            pooled += card_v1.scored(d, k, max_tiles)
    cal = {c: float(np.mean([s >= thr['highAi'] for l, _, s, _ in pooled if l == c])) for c in ('ai', 'real')}
    manifest = dict(
        name='veracity-detector',
        version=VERSION,
        file='model.onnx',
        sha256=sha256(onnx_path),
        input=dict(name='tiles', layout='NCHW', channels=3, colorSpace='sRGB', dtype='float32', tileSize=TILE,
                   mean=list(common.MEAN), std=list(common.STD), batchDynamic=True),
        output=dict(name='logit', kind='logit',
                    meaning='shape [N, 1]: logit of P(tile is AI-generated); sigmoid gives the probability. The '
                            'Haar DWT high bands and the NPR residual (tile minus its 2x nearest down/up-sampled '
                            'copy), the only things the network reads, are computed inside the graph.'),
        tiling=dict(stride=STRIDE, maxTiles=max_tiles, heatmapMaxTiles=HEAT),
        aggregation=dict(method='top_k_mean', k=k,
                         description=f'Tiles of {TILE}x{TILE} at native resolution with origins (i*{STRIDE}, '
                                     f'j*{STRIDE}) fully inside the image, row-major; when the grid has N > '
                                     f'{max_tiles} tiles, the tiles at indices floor(i*N/{max_tiles}), i = 0..'
                                     f'{max_tiles - 1}, make the file score. File score = mean of the {k} highest '
                                     f'tile probabilities (all of them when fewer). Images under {TILE}px on a side '
                                     f'are padded by reflection to one tile. The heatmap shows up to {HEAT} tiles '
                                     f'sampled the same way (floor(i*N/{HEAT})), a superset of those; the others do '
                                     f'not change the file score.'),
        thresholds=dict(decision=thr['highAi'], highAi=thr['highAi'], highAuthentic=thr['highAuthentic'],
                        inconclusiveBand=[band[0], band[1]]),
        calibration=dict(pixelsDecide=bool(a.pixels_decide), realAtHighAi=round(cal['real'], 4),
                         aiAtHighAi=round(cal['ai'], 4), split=card['thresholds_from']),
        training=dict(
            sources=idx['sources'],
            licences=sorted(set(licence_lines(idx['sources']))),
            command='cd models/training && ./reproduce.sh'),
    )
    common.save_json(os.path.join(common.SHIP, 'manifest.json'), manifest)
    file_scores = {}
    # keys: 'modern' is modern/ as it is, in common.list_files order (test/unit/analysis/analyse.test.ts re-scores
    # every 6th file through the product); the others are named for calibration-table.ts's rows
    names = {'modern_raw': 'modern', 'modern_jpeg90': 'modern (both classes JPEG q90)',
             'modern_tx': 'modern (both classes through transforms.py)', 'val_raw': 'validation by source',
             'val_tx': 'validation by source (both classes through transforms.py)'}
    for name, key in names.items():
        d = card_v1.load(a.run, name)
        if d:
            file_scores[key] = [dict(label=l, source=s.replace('modern/', '', 1), score=round(sc, 6)) for l, s, sc, _ in
                                 card_v1.scored(d, k, max_tiles)]
    ev = card_v1.clean(dict(model='%s@%s' % (a.run, a.ckpt), step=step, card=card, file_scores=file_scores))
    common.save_json(os.path.join(common.SHIP, 'eval-results.json'), ev)
    print('exported', onnx_path, os.path.getsize(onnx_path), 'bytes', manifest['sha256'])


def crop_sources(run, ckpt, crops=''):
    """The sources of every crop cache the run trained on (the checkpoint's config's `crops`; --crops where a
    checkpoint rebuilt from ONNX (onnx_to_ckpt.py) kept none)."""
    cfg = torch.load(os.path.join(common.RUNS, run, ckpt))['config']
    assert cfg.get('crops') or crops, 'the checkpoint names no crop caches: give --crops'
    out = set()
    for c in (cfg.get('crops') or crops).split(','):
        out.update(json.load(open(os.path.join(common.CACHE, c, 'index.json')))['sources'])
    return out


def keep_content(a, onnx_path, card):
    man_path = os.path.join(common.SHIP, 'manifest.json')
    man = json.load(open(man_path))
    assert 'fusion' in man and 'semantic' in man, '--keep-content needs a shipped manifest with content branches'
    thr = card['thresholds']
    man['sha256'] = sha256(onnx_path)
    man['tiling']['maxTiles'] = card['max_tiles']
    assert man['aggregation']['k'] == card['k'] and man['tiling']['heatmapMaxTiles'] == HEAT, 'aggregation text is k=3, HEAT'
    man['tileThresholds'] = dict(decision=thr['highAi'], highAi=thr['highAi'], highAuthentic=thr['highAuthentic'],
                                 inconclusiveBand=[thr['highAuthentic'], thr['highAi']])
    srcs = sorted(set(man['training']['sources']) | crop_sources(a.run, a.ckpt, a.crops))  # the content runs' sources stay listed
    man['training']['sources'] = srcs
    man['training']['licences'] = sorted(set(licence_lines(srcs)))
    common.save_json(man_path, man)
    print('artefact network replaced:', onnx_path, os.path.getsize(onnx_path), 'bytes', man['sha256'],
          '(run semantic/ship_v11.py --keep-semantic --keep-semantic2 next)')


def licence_lines(sources):
    import sys
    sys.path.insert(0, os.path.join(common.HERE, 'data'))
    import sources as data_sources
    lic = {'v1/' + s['name']: s['licence'] for s in data_sources.SOURCES}
    out = []
    for s in sources:
        if s.startswith('v1/'):
            out.append('%s: %s' % (s, lic.get(s, '?')))
        else:
            label = None
            for (lab, name), (text, _) in common.LICENCES.items():
                if 'train/' + name == s:
                    label = text
            out.append('%s: %s' % (s, label or '?'))
    return out


if __name__ == '__main__':
    main()
