# Ships veracity-detector 1.1.0 = the 1.0.0 artefact network (model.onnx, unchanged) + the semantic branch (sem-ft4,
# exported by export_onnx.py) fused by fuse.py's logistic regression. Writes, in models/veracity-detector/:
# semantic.onnx (copy), manifest.json (version, `semantic`, `fusion`, thresholds and calibration of the FUSED score
# from the leave-one-source-out validation scores, card_v1.py's rule; modern/ never used), eval-results.json (the
# fused card and every fused file score, for calibration-table.ts and analyse.test.ts), parity.json's `semantic`
# entries (PyTorch logits of 224x224 fixtures, regenerated in test/fixtures/model/semantic/).
#   /usr/bin/python3 ship_v11.py [--sem sem-ft4] [--fused fuse-ft4]
# 1.3.0: a second semantic branch (InceptionV3 at 299 px, another run's ckpt, exported with export_onnx.py --fp16) as
# the manifest's `semantic2` (semantic2.onnx), fused with the other two by a 3-feature fit (fuse.py --features all3):
#   SEM_MODEL=inception_v3 /usr/bin/python3 ship_v11.py --sem sem7-all --sem2 inc-m9 --fused finc9-all3-tx \
#       --version 1.3.0 --keep-semantic
# 1.3.1: the same models and fusion; --guard counts the files the photo guard (guard/) flags as below highAi in the
# calibration, and --pixels-decide (allowed only at <= 3 % of validation's real photos at highAi) lets the pixels decide.
# 1.4.0: --val21 also takes Data 2.1's validation sources (val21_raw / val21_tx, fuse.py --val21) into the thresholds,
# the calibration and eval-results.json; --valpt does the same with Data 2.2's real portraits (valpt_raw / valpt_tx).
# 1.5.0: --portraits TAGS.json (../face_tags.ts: the product's own face finder over the validation files) splits
# validation's real photos into portraits (largest face >= PORTRAIT of the shorter side) and the rest, and applies the
# 3 % rule to each group (all AI files in both): the manifest's `thresholds` become the rest's, `portraits` carries the
# portraits' thresholds, the finder's parameters and cascade, and each group's calibration.
# --keep-semantic: semantic.onnx, its manifest entry, parity entries and fixtures stay as shipped (its run's
# checkpoint is not needed); the run's scores still enter the fusion. --keep-semantic2 does the same for semantic2.onnx.
# A new artefact network beside the shipped content branches: export_v1.py RUN --keep-content (model.onnx, its parity
# fixtures and the manifest's artefact fields), then fuse.py --artefact runs/RUN and this with both --keep flags; the
# training record is then the manifest's (the artefact run's caches already added to it).
import argparse
import json
import os
import shutil
import sys

import numpy as np
from PIL import Image, ImageDraw

import sem_common as S
import card_v1
from export import sha256

PORTRAIT = 0.15  # portraits.PORTRAIT: a portrait's largest face spans at least this share of the shorter side
VERSION = '1.1.0'  # --version for later ships (1.2.0: sem7-all, blocks 10-16)
TRAINED = {'mixed8': 'Inception blocks mixed9-mixed10', 'mixed9': 'Inception block mixed10',
           'block_12_add': 'blocks 13-16 + Conv_1', 'block_9_add': 'blocks 10-16 + Conv_1',
           'block_10_project_BN': 'blocks 11-16 + Conv_1', 'block_5_add': 'blocks 6-16 + Conv_1',
           'block_6_project_BN': 'blocks 7-16 + Conv_1'}
FIXTURES = os.path.join(S.common.REPO, 'test', 'fixtures', 'model', 'semantic')


def fused_rows(run, name):
    return card_v1.scored(card_v1.load(run, name), 1, 1)  # one "tile" per file = the fused probability


def make_fixtures(size=224, folder=FIXTURES):
    """Synthetic size x size images (never dataset files), so the check needs no resize: drawn shapes, noise, a
    smooth gradient with grain (224: the bytes shipped with 1.1.0; 299 for the InceptionV3 branch)."""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(4321)
    out = {}
    n = size
    k = n / 224
    im = Image.new('RGB', (n, n))
    d = ImageDraw.Draw(im)
    for y in range(n):
        d.line([(0, y), (n - 1, y)], fill=(30 + int(y / k) // 2, 120, 210 - int(y / k) // 2))
    d.ellipse([int(30 * k), int(30 * k), int(140 * k), int(170 * k)], fill=(230, 190, 50))
    d.rectangle([int(130 * k), int(60 * k), int(210 * k), int(200 * k)], fill=(40, 150, 90))
    out['shapes-%d.png' % n] = np.asarray(im, dtype=np.uint8)
    out['noise-%d.png' % n] = rng.integers(0, 256, (n, n, 3), dtype=np.uint8)
    g = np.linspace(0, 255, n)
    grad = np.stack([np.add.outer(g, g) / 2, np.add.outer(g[::-1], g) / 2, np.full((n, n), 128.0)], -1)
    out['grain-gradient-%d.png' % n] = np.clip(grad + rng.integers(-12, 13, grad.shape), 0, 255).astype(np.uint8)
    for name, arr in out.items():
        Image.fromarray(arr).save(os.path.join(folder, name), optimize=True)
    return out


def semantic_entry(file, sha, size, model_name, trained):
    return dict(
        file=file, sha256=sha,
        input=dict(name='image', layout='NHWC', size=size, channels=3, colorSpace='sRGB', dtype='float32', scale=1 / 255,
                   resize='the whole decoded picture (orientation applied, alpha removed) resized to %dx%d, aspect '
                          'not kept, nothing cropped; antialiased bilinear (PIL BILINEAR, reducing_gap 3 in training; '
                          'sharp in the product, agreement in MODEL_CARD.md)' % (size, size),
                   batchDynamic=True),
        output=dict(name='logit', kind='logit',
                    meaning='shape [N]: logit of P(picture is AI-generated) from its content (nsfwjs 4.4.0 '
                            '%s, %s fine-tuned, new head)' % (model_name, trained)),
    )


def run_sources(run):
    """The training sources a content run's cache(s) held: its config.json (runs/RUN, or results/RUN.config.json where
    the run folder kept none), the main cache's list and those of its extra caches."""
    p = os.path.join(S.RUNS, run, 'config.json')
    cfg = json.load(open(p if os.path.exists(p) else os.path.join(S.HERE, 'results', run + '.config.json')))
    srcs = set(cfg['cache']['sources'])
    for c in filter(None, (cfg.get('extra_caches') or '').split(',')):
        srcs.update(json.load(open(os.path.join(S.common.CACHE, c, 'train.json')))['sources'])
    return srcs


def training_record(man, runs):
    """The manifest's `training`: every source any shipped branch learnt from (the artefact network's record, kept
    from its export, and each content run's caches), one licence line each, and whether a commercial build may use
    the weights (data/licences.py: every source permissive) with the restricted ones and why."""
    import export_v1
    import licences
    srcs = set(man['training']['sources'])
    for r in runs:
        srcs |= run_sources(r)
    srcs = sorted(srcs)
    return dict(sources=srcs, licences=sorted(set(export_v1.licence_lines(srcs))),
                permissive=all(licences.permissive(n) for n in srcs),
                restricted=['%s: %s' % (n, licences.why(n)) for n in srcs if not licences.permissive(n)],
                command=man['training']['command'])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sem', default='sem-ft4')
    ap.add_argument('--fused', default='fuse-ft4')
    ap.add_argument('--version', default=VERSION)
    ap.add_argument('--pixels-decide', action='store_true', help='the calibration lets a fused score >= highAi decide')
    ap.add_argument('--sem2', default='', help='a second semantic run (SEM_MODEL=inception_v3), shipped as semantic2.onnx')
    ap.add_argument('--guard', action='store_true',
                    help='the calibration counts a file the photo guard flags (guard/flags.py) as not at highAi, as the product reads it')
    ap.add_argument('--dry', action='store_true', help='print the thresholds and calibration, write nothing')
    ap.add_argument('--keep-semantic', action='store_true', help='semantic.onnx and its parity fixtures stay as shipped')
    ap.add_argument('--keep-semantic2', action='store_true', help='semantic2.onnx and its parity fixtures stay as shipped')
    ap.add_argument('--val21', action='store_true', help='validation includes Data 2.1\'s sources (val21_raw, val21_tx)')
    ap.add_argument('--portraits', default='', help='face tags of the product\'s finder (../face_tags.ts): thresholds per group')
    ap.add_argument('--valpt', action='store_true', help='validation includes Data 2.2\'s real portraits (valpt_raw, valpt_tx)')
    ap.add_argument('--odd-real', default='', help='rule C2 (README "Twenty-third session"): each group\'s highAi is '
                    'also at least the 3 %% rule over validation pooled with these genuine captures\' product readings '
                    '(test/eval/pixel-verdicts.ts rows with the candidate installed; readings a pixel check took out left out)')
    ap.add_argument('--valtilt', action='store_true', help='validation includes its portraits turned +20 / -30 degrees '
                    '(valtilt_raw, valtilt_tx: ../valtilt_files.ts; both classes, scored by their source\'s LOSO fit)')
    a = ap.parse_args()
    vsets = ('val_raw', 'val_tx') + (('val21_raw', 'val21_tx') if a.val21 else ()) + (('valpt_raw', 'valpt_tx') if a.valpt else ()) \
        + (('valtilt_raw', 'valtilt_tx') if a.valtilt else ())
    fused_dir = os.path.join(S.RUNS, a.fused)
    info = json.load(open(os.path.join(fused_dir, 'fusion.json')))
    assert info['sem'] == a.sem and info['features'] == ('all3' if a.sem2 else 'both'), info
    assert (info.get('sem2') or '') == a.sem2, info
    assert not a.sem2 or S.MODEL == 'inception_v3', 'SEM_MODEL=inception_v3 for the second branch'

    # thresholds of the fused score: validation only (val_raw + val_tx [+ val21_*] pooled), LOSO scores, card_v1's rule
    val = [r for name in vsets for r in fused_rows(a.fused, name)]
    if a.portraits:  # one group's real photos (all AI files): the rest's thresholds here, the portraits' below
        tag_file = json.load(open(a.portraits))
        is_port = lambda p: (tag_file['tags'].get(p) or [None])[0] is not None and tag_file['tags'][p][1] >= PORTRAIT
        missing = [p for _, _, _, p in val if p not in tag_file['tags']]
        assert not missing, 'untagged validation files: %s' % missing[:3]
        val_port = [r for r in val if r[0] == 'ai' or is_port(r[3])]
        val = [r for r in val if r[0] == 'ai' or not is_port(r[3])]
    odd = {False: [], True: []}  # C2's genuine captures per group (portrait or not), as validation rows
    if a.odd_real:
        pv = json.load(open(a.odd_real))
        assert all('checks' in r for r in pv['rows']), '%s predates the rows\' `checks`' % a.odd_real
        net = pv.get('networks')
        if net:  # the rows must be the candidate's: the networks installed when they were scored
            here = json.load(open(os.path.join(S.common.SHIP, 'manifest.json')))
            sem_sha = sha256(os.path.join(S.OUT, a.sem + '.onnx')) if not a.keep_semantic else here['semantic']['sha256']
            assert net['semantic'] == sem_sha, 'the rows were scored with another semantic network'
        else:
            print('warning: %s does not name its networks; make sure they were the candidate\'s' % a.odd_real)
        for r in pv['rows']:
            if r['label'] == 'real' and r['score'] is not None and not r['checks']:
                odd[bool(r['portrait']) if a.portraits else False].append(('real', 'odd', r['score'], r['file'] + ' | ' + r['variant']))

    def c2(rows, extra, name):  # the higher of the 3 % rule on validation and on validation + the genuine captures
        t = card_v1.thresholds(rows)
        if not a.odd_real:
            return t
        t2 = card_v1.thresholds(rows + extra)
        out = dict(highAi=max(t['highAi'], t2['highAi']), highAuthentic=min(t['highAuthentic'], max(t['highAi'], t2['highAi'])))
        hit = lambda thr_: sum(s >= thr_ for _, _, s, _ in extra)
        print('C2 %s: validation alone highAi %.4f, pooled with %d genuine captures %.4f -> %.4f; captures at highAi %d '
              '(at the validation bar %d)' % (name, t['highAi'], len(extra), t2['highAi'], out['highAi'], hit(out['highAi']),
                                              hit(t['highAi'])))
        return out

    thr = c2(val, odd[False], 'rest' if a.portraits else 'all')
    if a.valtilt:  # highAuthentic from the untilted AI files only: the tilted copies (four readings of each of 80 AI
        # portraits, scoring higher than their originals) would raise it, letting more untilted AI files fall below it
        lo = card_v1.thresholds([r for name in vsets if not name.startswith('valtilt')
                                 for r in fused_rows(a.fused, name)])['highAuthentic']
        thr['highAuthentic'] = min(lo, thr['highAi'])
    re = np.array([s for l, _, s, _ in val if l == 'real'])
    ai = np.array([s for l, _, s, _ in val if l == 'ai'])
    cal = dict(real=float(np.mean(re >= thr['highAi'])), ai=float(np.mean(ai >= thr['highAi'])))
    modern = fused_rows(a.fused, 'modern_raw')
    modern_real = float(np.mean([s >= thr['highAi'] for l, _, s, _ in modern if l == 'real']))
    if a.guard:  # the thresholds stay the fused score's; only what reaches highAi in the product changes
        sys.path.insert(0, os.path.join(S.TRAINING, 'guard'))
        import flags
        hit = [(l, s >= thr['highAi'] and p not in fl) for name in vsets
               for fl in [flags.flagged(name)] for l, _, s, p in fused_rows(a.fused, name)]
        cal = dict(real=float(np.mean([h for l, h in hit if l == 'real'])), ai=float(np.mean([h for l, h in hit if l == 'ai'])),
                   unguarded=cal)
        fm = flags.flagged('modern_raw')
        modern_real = float(np.mean([s >= thr['highAi'] and p not in fm for l, _, s, p in modern if l == 'real']))
    if a.portraits:
        thr_p = c2(val_port, odd[True], 'portraits')
        if a.valtilt:
            thr_p['highAuthentic'] = min(thr['highAuthentic'], thr_p['highAi'])
        flagged = {name: (flags.flagged(name) if a.guard else set()) for name in vsets}

        def called(t, group):  # (label, at highAi and not flagged) of each validation file of the group, per set
            return [(l, s >= t['highAi'] and p not in flagged[name]) for name in vsets
                    for l, _, s, p in fused_rows(a.fused, name) if is_port(p) == group]
        hits = called(thr_p, True)
        cal_p = dict(real=float(np.mean([h for l, h in hits if l == 'real'])), ai=float(np.mean([h for l, h in hits if l == 'ai'])),
                     n_real=sum(l == 'real' for l, _ in hits), n_ai=sum(l == 'ai' for l, _ in hits))
        hits_o = called(thr, False)  # the rest's calibration on the rest alone (AI portraits meet the portraits' thresholds)
        cal = dict(real=float(np.mean([h for l, h in hits_o if l == 'real'])), ai=float(np.mean([h for l, h in hits_o if l == 'ai'])),
                   n_real=sum(l == 'real' for l, _ in hits_o), n_ai=sum(l == 'ai' for l, _ in hits_o))
        assert not a.pixels_decide or cal_p['real'] <= 0.03, 'pixelsDecide needs at most 3 %% of portraits at highAi: %s' % cal_p
        fm = flags.flagged('modern_raw') if a.guard else set()
        modern_real = float(np.mean([s >= (thr_p if is_port(p) else thr)['highAi'] and p not in fm
                                     for l, _, s, p in modern if l == 'real']))
        print('portraits: %s %s; rest: %s %s' % (thr_p, cal_p, thr, cal))
        # what the product calls: each AI file of val + val21 against its own group's thresholds (check T3 of 1.5.1)
        for kind in ('raw', 'tx'):
            got = [s >= (thr_p if is_port(p) else thr)['highAi'] and p not in flagged[name]
                   for name in vsets if name.endswith(kind) and not name.startswith(('valpt', 'valtilt'))
                   for l, _, s, p in fused_rows(a.fused, name) if l == 'ai']
            print('AI at highAi, val + val21 %s, each in its group: %.4f of %d' % (kind, np.mean(got), len(got)))
        if a.valtilt:  # the tilted copies: how many the finder reads as portraits, and how many are called AI
            for name in ('valtilt_raw', 'valtilt_tx'):
                for lab in ('real', 'ai'):
                    rs = [(is_port(p), s >= (thr_p if is_port(p) else thr)['highAi'] and p not in flagged[name])
                          for l, _, s, p in fused_rows(a.fused, name) if l == lab]
                    print('%s %s: %d files, %d read as portraits, %d at highAi' % (name, lab, len(rs), sum(x for x, _ in rs),
                                                                             sum(h for _, h in rs)))
    assert not a.pixels_decide or cal['real'] <= 0.03, 'pixelsDecide needs at most 3 %% of validation real at highAi: %s' % cal
    if a.dry:
        print(json.dumps(dict(thresholds=thr, portraits=thr_p if a.portraits else None, calibration=cal, modern_real_at_highAi=modern_real)))
        return

    man_path = os.path.join(S.common.SHIP, 'manifest.json')
    man = json.load(open(man_path))
    man['version'] = a.version
    if a.keep_semantic:
        assert man['semantic']['sha256'] == sha256(os.path.join(S.common.SHIP, 'semantic.onnx')), 'semantic.onnx changed'
    else:
        onnx_dst = os.path.join(S.common.SHIP, 'semantic.onnx')
        shutil.copyfile(os.path.join(S.OUT, a.sem + '.onnx'), onnx_dst)
        st0 = __import__('torch').load(os.path.join(S.RUNS, a.sem, 'ckpt.pt'))
        man['semantic'] = semantic_entry('semantic.onnx', sha256(onnx_dst), 224, 'MobileNetV2', TRAINED[st0['start']])
    feats = [('semantic', 'the semantic model\'s logit of the whole picture'),
             ('artefact', 'logit of the artefact file score (top-k mean of tile probabilities), the probability '
                          'clipped to [1e-6, 1 - 1e-6] first')]
    if a.sem2:
        feats.append(('semantic2', 'the second semantic model\'s logit of the whole picture (InceptionV3 at %d px)' % S.SIZE))
    if a.sem2 and a.keep_semantic2:
        assert man['semantic2']['sha256'] == sha256(os.path.join(S.common.SHIP, 'semantic2.onnx')), 'semantic2.onnx changed'
    elif a.sem2:
        onnx_dst2 = os.path.join(S.common.SHIP, 'semantic2.onnx')
        shutil.copyfile(os.path.join(S.OUT, a.sem2 + '.onnx'), onnx_dst2)
        st2 = __import__('torch').load(os.path.join(S.RUNS, a.sem2, 'ckpt.pt'))
        man['semantic2'] = semantic_entry('semantic2.onnx', sha256(onnx_dst2), S.SIZE, 'InceptionV3 (weights stored '
                                          'as float16)', TRAINED[st2['start']])
    else:
        man.pop('semantic2', None)
    *coef, bias = info['coef_standardised']
    man['fusion'] = dict(
        method='logistic_regression',
        features=[dict(name=n, definition=d, mean=mu, std=sd, weight=w)
                  for (n, d), mu, sd, w in zip(feats, info['mean'], info['sd'], coef)],
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
                              split=' + '.join(vsets) + ', fused scores leave-one-source-out (by-source validation '
                                    'split; modern/ never used)' + ('; files the photo guard flags count as below '
                                                                    'highAi, as the product reads them' if a.guard else ''))
    c2_note = ('; highAi is also at least the point reached by 3 %% of these readings pooled with %d product readings '
               'of Data 2.11\'s unusual genuine captures (rule C2, semantic/README.md; readings a pixel check takes '
               'out left out)') if a.odd_real else ''
    man['calibration']['split'] += c2_note % len(odd[False]) if a.odd_real else ''
    if a.portraits:
        tp = tag_file['params']
        cascade = os.path.join(S.common.SHIP, 'haarcascade_frontalface_alt2.xml')
        split = ' + '.join(vsets) + ' (the same LOSO fused scores)'
        man['calibration']['split'] += '; pictures without a portrait (face tags of the product\'s face finder, %d real ' \
                                       'and %d AI files) only' % (cal['n_real'], cal['n_ai'])
        man['portraits'] = dict(
            finder=dict(method='haar_cascade', file='haarcascade_frontalface_alt2.xml', sha256=sha256(cascade),
                        licence='Intel License Agreement For Open Source Computer Vision Library (BSD-style; the file\'s '
                                'header), OpenCV 4.6 opencv-data',
                        shortSide=tp['shortSide'], scaleFactor=tp['scaleFactor'], minNeighbors=tp['minNeighbors'],
                        minFace=tp['minFace'], **({'search': tp['search']} if tp.get('search') else {}),
                        **({'searchNeighbors': tp['searchNeighbors']} if tp.get('search') and 'searchNeighbors' in tp else {})),
            minFace=PORTRAIT,
            thresholds=dict(decision=thr_p['highAi'], highAi=thr_p['highAi'], highAuthentic=thr_p['highAuthentic'],
                            inconclusiveBand=[thr_p['highAuthentic'], thr_p['highAi']]),
            calibration=dict(realAtHighAi=round(cal_p['real'], 4), aiAtHighAi=round(cal_p['ai'], 4),
                             split=split + '; real portraits (%d files the face finder tags) and all AI files for the '
                                   'thresholds, AI portraits (%d) for aiAtHighAi' % (cal_p['n_real'], cal_p['n_ai'])
                                   + (c2_note % len(odd[True]) if a.odd_real else '')))
    else:
        man.pop('portraits', None)
    man['training'] = training_record(man, ([] if a.keep_semantic else [a.sem]) +
                                      ([a.sem2] if a.sem2 and not a.keep_semantic2 else []))
    S.common.save_json(man_path, man)

    # eval-results.json: the fused card (results.py) and every fused file score
    ev_path = os.path.join(S.common.SHIP, 'eval-results.json')
    card = json.load(open(os.path.join(S.HERE, 'results', a.fused + '.json')))
    card['thresholds_from'] = man['calibration']['split']
    names = {'modern_raw': 'modern', 'modern_jpeg90': 'modern (both classes JPEG q90)',
             'val_raw': 'validation by source', 'val_tx': 'validation by source (both classes through transforms.py)'}
    if a.val21:
        names.update(val21_raw='validation, Data 2.1 sources', val21_tx='validation, Data 2.1 sources (both classes '
                                                                          'through transforms.py)')
    if a.valpt:
        names.update(valpt_raw='validation, Data 2.2 real portraits', valpt_tx='validation, Data 2.2 real portraits (through '
                                                                              'transforms.py)')
    file_scores = {key: [dict(label=l, source=s.replace('modern/', '', 1), score=round(sc, 6),
                              **(dict(portrait=True) if a.portraits and is_port(p) else {}))
                         for l, s, sc, p in fused_rows(a.fused, name)] for name, key in names.items()}
    art = json.load(open(os.path.join(S.common.SHIP, 'parity.json')))['model']  # the artefact network's run@ckpt
    ev = card_v1.clean(dict(model='%s%s + %s fused (%s)' % (a.sem, ' + ' + a.sem2 if a.sem2 else '', art, a.fused), step=None,
                            card=card, file_scores=file_scores,
                            note='validation scores: leave-one-source-out fits; modern/: the shipped fit'))
    S.common.save_json(ev_path, ev)

    # parity fixtures for the semantic model (PyTorch, exactly 224x224: no resize involved)
    import torch
    torch.set_num_threads(1)
    par_path = os.path.join(S.common.SHIP, 'parity.json')
    par = json.load(open(par_path))
    entries = []

    def parity(run, folder, size, fp16):
        par[folder] = parity_fixtures(run, folder, size, fp16)
        return par[folder]['fixtures']

    mobilenet_apart = not a.keep_semantic and S.MODEL == 'inception_v3'  # this process builds InceptionV3's heads
    if not a.keep_semantic and not mobilenet_apart:
        entries += parity(a.sem, 'semantic', 224, False)
    if a.sem2 and not a.keep_semantic2:
        entries += parity(a.sem2, 'semantic2', S.SIZE, True)
    elif not a.sem2:
        par.pop('semantic2', None)
    S.common.save_json(par_path, par)
    if mobilenet_apart:  # a new MobileNetV2 beside a second branch: its parity entries from a process that builds it
        import subprocess
        subprocess.run([sys.executable, os.path.abspath(__file__), '--parity-semantic', a.sem], check=True,
                       env=dict(os.environ, SEM_MODEL='mobilenet_v2', SEM_SIZE='224'))
        entries += json.load(open(par_path))['semantic']['fixtures']
    print(json.dumps(dict(thresholds=thr, calibration=cal, modern_real_at_highAi=modern_real, parity=entries)))


def parity_fixtures(run, folder, size, fp16):
    """parity.json's entry for one content branch: the PyTorch logits of its synthetic fixtures (size x size, written
    to test/fixtures/model/FOLDER/), from the run's ckpt.pt (fp16: the weights rounded as semantic2.onnx holds them)."""
    import torch
    import export_onnx
    import train
    st = torch.load(os.path.join(S.RUNS, run, 'ckpt.pt'))
    head = train.Head(st['start'])
    head.load_state_dict(st['state'])
    m = export_onnx.Full(head, st['start']).eval()
    if fp16:
        export_onnx.round_fp16(m)  # the numbers semantic2.onnx holds
    fx = make_fixtures(size, os.path.join(os.path.dirname(FIXTURES), folder))
    out = []
    with torch.no_grad():
        for name in sorted(fx):
            x = torch.from_numpy(fx[name].astype(np.float32)[None] / 255.0)
            out.append(dict(file='%s/%s' % (folder, name), width=size, height=size, logit=float(m(x)[0])))
    return dict(model='%s ckpt.pt (PyTorch%s)' % (run, ', weights rounded to float16 as shipped' if fp16 else ''),
                note='onnxruntime-node must agree within 1e-4', fixtures=out)


def parity_semantic(run):
    """parity.json's `semantic` entry for a MobileNetV2 run, from a process that builds MobileNetV2
    (SEM_MODEL=mobilenet_v2): main() calls it so when it ships a new one beside InceptionV3 (ship_v11.py
    --parity-semantic RUN)."""
    import torch
    assert S.MODEL == 'mobilenet_v2', S.MODEL
    torch.set_num_threads(1)
    par_path = os.path.join(S.common.SHIP, 'parity.json')
    par = json.load(open(par_path))
    par['semantic'] = parity_fixtures(run, 'semantic', 224, False)
    S.common.save_json(par_path, par)


if __name__ == '__main__':
    if sys.argv[1:2] == ['--parity-semantic']:
        parity_semantic(sys.argv[2])
    else:
        main()
