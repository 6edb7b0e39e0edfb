# Ships veracity-detector 1.1.0 = the 1.0.0 artefact network (model.onnx, unchanged) + the semantic branch (sem-ft4,
# exported by export_onnx.py) fused by fuse.py's logistic regression. Writes, in models/veracity-detector/:
# semantic.onnx (copy), manifest.json (version, `semantic`, `fusion`, thresholds and calibration of the FUSED score
# from the leave-one-source-out validation scores, card_v1.py's rule; modern/ never used), eval-results.json (the
# fused card and every fused file score, for calibration-table.ts and analyse.test.ts), parity.json's `semantic`
# entries (PyTorch logits of 224x224 fixtures, regenerated in test/fixtures/model/semantic/).
#   /usr/bin/python3 ship_v11.py [--sem sem-ft4] [--fused fuse-ft4]
import argparse
import json
import os
import shutil

import numpy as np
from PIL import Image, ImageDraw

import sem_common as S
import card_v1
from export import sha256

VERSION = '1.1.0'  # --version for later ships (1.2.0: sem7-all, blocks 10-16)
TRAINED = {'block_12_add': 'blocks 13-16 + Conv_1', 'block_9_add': 'blocks 10-16 + Conv_1',
           'block_10_project_BN': 'blocks 11-16 + Conv_1', 'block_5_add': 'blocks 6-16 + Conv_1',
           'block_6_project_BN': 'blocks 7-16 + Conv_1'}
FIXTURES = os.path.join(S.common.REPO, 'test', 'fixtures', 'model', 'semantic')


def fused_rows(run, name):
    return card_v1.scored(card_v1.load(run, name), 1, 1)  # one "tile" per file = the fused probability


def make_fixtures():
    """Synthetic 224x224 images (never dataset files), so the check needs no resize: drawn shapes, noise, a smooth
    gradient with grain."""
    os.makedirs(FIXTURES, exist_ok=True)
    rng = np.random.default_rng(4321)
    out = {}
    im = Image.new('RGB', (224, 224))
    d = ImageDraw.Draw(im)
    for y in range(224):
        d.line([(0, y), (223, y)], fill=(30 + y // 2, 120, 210 - y // 2))
    d.ellipse([30, 30, 140, 170], fill=(230, 190, 50))
    d.rectangle([130, 60, 210, 200], fill=(40, 150, 90))
    out['shapes-224.png'] = np.asarray(im, dtype=np.uint8)
    out['noise-224.png'] = rng.integers(0, 256, (224, 224, 3), dtype=np.uint8)
    g = np.linspace(0, 255, 224)
    grad = np.stack([np.add.outer(g, g) / 2, np.add.outer(g[::-1], g) / 2, np.full((224, 224), 128.0)], -1)
    out['grain-gradient-224.png'] = np.clip(grad + rng.integers(-12, 13, grad.shape), 0, 255).astype(np.uint8)
    for name, arr in out.items():
        Image.fromarray(arr).save(os.path.join(FIXTURES, name), optimize=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sem', default='sem-ft4')
    ap.add_argument('--fused', default='fuse-ft4')
    ap.add_argument('--version', default=VERSION)
    ap.add_argument('--pixels-decide', action='store_true', help='the calibration lets a fused score >= highAi decide')
    a = ap.parse_args()
    fused_dir = os.path.join(S.RUNS, a.fused)
    info = json.load(open(os.path.join(fused_dir, 'fusion.json')))
    assert info['sem'] == a.sem and info['features'] == 'both', info

    # thresholds of the fused score: validation only (val_raw + val_tx pooled), LOSO scores, card_v1's rule
    val = fused_rows(a.fused, 'val_raw') + fused_rows(a.fused, 'val_tx')
    thr = card_v1.thresholds(val)
    re = np.array([s for l, _, s, _ in val if l == 'real'])
    ai = np.array([s for l, _, s, _ in val if l == 'ai'])
    cal = dict(real=float(np.mean(re >= thr['highAi'])), ai=float(np.mean(ai >= thr['highAi'])))
    modern = fused_rows(a.fused, 'modern_raw')
    modern_real = float(np.mean([s >= thr['highAi'] for l, _, s, _ in modern if l == 'real']))

    onnx_src = os.path.join(S.OUT, a.sem + '.onnx')
    onnx_dst = os.path.join(S.common.SHIP, 'semantic.onnx')
    shutil.copyfile(onnx_src, onnx_dst)
    man_path = os.path.join(S.common.SHIP, 'manifest.json')
    man = json.load(open(man_path))
    man['version'] = a.version
    st0 = __import__('torch').load(os.path.join(S.RUNS, a.sem, 'ckpt.pt'))
    (ms, ma), (ss, sa) = info['mean'], info['sd']
    ws, wa, bias = info['coef_standardised']
    man['semantic'] = dict(
        file='semantic.onnx', sha256=sha256(onnx_dst),
        input=dict(name='image', layout='NHWC', size=224, channels=3, colorSpace='sRGB', dtype='float32', scale=1 / 255,
                   resize='the whole decoded picture (orientation applied, alpha removed) resized to 224x224, aspect '
                          'not kept, nothing cropped; antialiased bilinear (PIL BILINEAR, reducing_gap 3 in training; '
                          'sharp in the product, agreement in MODEL_CARD.md)',
                   batchDynamic=True),
        output=dict(name='logit', kind='logit',
                    meaning='shape [N]: logit of P(picture is AI-generated) from its content (nsfwjs 4.4.0 '
                            'MobileNetV2, %s fine-tuned, new head)' % TRAINED[st0['start']]),
    )
    man['fusion'] = dict(
        method='logistic_regression',
        features=[
            dict(name='semantic', definition='the semantic model\'s logit of the whole picture', mean=ms, std=ss,
                 weight=ws),
            dict(name='artefact', definition='logit of the artefact file score (top-k mean of tile probabilities), '
                                             'the probability clipped to [1e-6, 1 - 1e-6] first', mean=ma, std=sa,
                 weight=wa),
        ],
        bias=bias, clip=1e-6,
        description='File score = sigmoid(bias + sum of weight * (feature - mean) / std). Fitted on the validation '
                    'split only (%s, class-balanced, L2 0.01; semantic/fuse.py). The heatmap stays '
                    % info.get('fitted_on', 'val_raw + val_tx').split(' (')[0] +
                    'the artefact model\'s tiles; the file score also weighs the whole picture\'s content.',
    )
    # the heatmap's tiles are the artefact model's: they keep its own (1.0.0) thresholds
    man['tileThresholds'] = man.get('tileThresholds') or dict(man['thresholds'])
    man['thresholds'] = dict(decision=thr['highAi'], highAi=thr['highAi'], highAuthentic=thr['highAuthentic'],
                             inconclusiveBand=[thr['highAuthentic'], thr['highAi']])
    man['calibration'] = dict(pixelsDecide=bool(a.pixels_decide), realAtHighAi=round(cal['real'], 4), aiAtHighAi=round(cal['ai'], 4),
                              split='val_tx + val_raw, fused scores leave-one-source-out (by-source validation '
                                    'split; modern/ never used)')
    S.common.save_json(man_path, man)

    # eval-results.json: the fused card (results.py) and every fused file score
    ev_path = os.path.join(S.common.SHIP, 'eval-results.json')
    card = json.load(open(os.path.join(S.HERE, 'results', a.fused + '.json')))
    card['thresholds_from'] = man['calibration']['split']
    names = {'modern_raw': 'modern', 'modern_jpeg90': 'modern (both classes JPEG q90)',
             'val_raw': 'validation by source', 'val_tx': 'validation by source (both classes through transforms.py)'}
    file_scores = {key: [dict(label=l, source=s.replace('modern/', '', 1), score=round(sc, 6))
                         for l, s, sc, _ in fused_rows(a.fused, name)] for name, key in names.items()}
    ev = card_v1.clean(dict(model='%s + v1-ft-data2@ema-00500.pt fused (%s)' % (a.sem, a.fused), step=None,
                            card=card, file_scores=file_scores,
                            note='validation scores: leave-one-source-out fits; modern/: the shipped fit'))
    S.common.save_json(ev_path, ev)

    # parity fixtures for the semantic model (PyTorch, exactly 224x224: no resize involved)
    import torch
    import export_onnx
    import train
    torch.set_num_threads(1)
    st = torch.load(os.path.join(S.RUNS, a.sem, 'ckpt.pt'))
    head = train.Head(st['start'])
    head.load_state_dict(st['state'])
    m = export_onnx.Full(head, st['start']).eval()
    fx = make_fixtures()
    par_path = os.path.join(S.common.SHIP, 'parity.json')
    par = json.load(open(par_path))
    entries = []
    with torch.no_grad():
        for name in sorted(fx):
            x = torch.from_numpy(fx[name].astype(np.float32)[None] / 255.0)
            z = float(m(x)[0])
            entries.append(dict(file='semantic/' + name, width=224, height=224, logit=z))
    par['semantic'] = dict(model='%s ckpt.pt (PyTorch)' % a.sem, note='onnxruntime-node must agree within 1e-4',
                           fixtures=entries)
    S.common.save_json(par_path, par)
    print(json.dumps(dict(thresholds=thr, calibration=cal, modern_real_at_highAi=modern_real,
                          semantic_bytes=os.path.getsize(onnx_dst), parity=entries)))


if __name__ == '__main__':
    main()
