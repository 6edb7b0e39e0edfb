# Measures a trained detector the way the product scores files (tiles on the stride grid, top-k mean): AUC per
# source on modern/ and on the by-source validation split of train/, decision flips under JPEG q70 and a 50 %
# resize, localisation of blended regions, and the thresholds chosen from the validation split.
import argparse
import os
import pickle
import time

import numpy as np
import torch
from PIL import Image, ImageFilter

from common import (CACHE, RUNS, STRIDE, TILE, TOP_K, VAL_SOURCES, Detector, auc, jpeg, resize, save_json,
                    score_image, seed_all, tile_in_region)


def load_model(name):
    ck = torch.load(os.path.join(RUNS, name, 'model.pt'))
    m = Detector(ck['mode'], ck['width'])
    m.load_state_dict(ck['state'])
    m.eval()
    return m, ck


def per_source_auc(scored):
    """AUC of each AI source against all authentic files of the same set, and overall."""
    reals = [s for (lab, src, s) in scored if lab == 'real']
    ais = [s for (lab, src, s) in scored if lab == 'ai']
    out = {'overall': dict(auc=auc(ais, reals), n_ai=len(ais), n_real=len(reals))}
    for src in sorted({src for (lab, src, s) in scored if lab == 'ai'}):
        a = [s for (lab, sr, s) in scored if lab == 'ai' and sr == src]
        out[src] = dict(auc=auc(a, reals), n_ai=len(a))
    return out


def rates(scored, thr):
    reals = np.array([s for (lab, _, s) in scored if lab == 'real'])
    ais = np.array([s for (lab, _, s) in scored if lab == 'ai'])
    return dict(tpr=float((ais >= thr).mean()), fpr=float((reals >= thr).mean()),
                balanced_accuracy=float(((ais >= thr).mean() + (reals < thr).mean()) / 2))


def choose_thresholds(scored):
    """From the validation split only (modern/ stays a test set):
    decision = Youden's J optimum; highAi = lowest score with validation FPR <= 2 %;
    highAuthentic = highest score with validation FNR <= 5 %; inconclusive band = the scores between
    the 25th percentile of validation AI scores and the 75th percentile of validation authentic scores,
    clamped around the decision threshold."""
    reals = np.sort([s for (lab, _, s) in scored if lab == 'real'])
    ais = np.sort([s for (lab, _, s) in scored if lab == 'ai'])
    cands = np.unique(np.concatenate([reals, ais]))
    best, dec = -1, 0.5
    for t in cands:
        j = (ais >= t).mean() - (reals >= t).mean()
        if j > best:
            best, dec = j, float(t)
    hi = float(next((t for t in cands if (reals >= t).mean() <= 0.02), 1.0))
    lo = float(next((t for t in cands[::-1] if (ais <= t).mean() <= 0.05), 0.0))
    hi, lo = max(hi, dec), min(lo, dec)
    band = [float(min(dec, max(lo, np.percentile(ais, 25)))), float(max(dec, min(hi, np.percentile(reals, 75))))]
    r = lambda v: float(round(v, 4))
    return dict(decision=r(dec), highAi=r(hi), highAuthentic=r(lo), inconclusiveBand=[r(band[0]), r(band[1])])


def flips(model, items, thr, fn):
    out = {}
    for lab in ('ai', 'real'):
        its = [it for it in items if it['label'] == lab]
        changed = 0
        for it in its:
            a = score_image(model, it['img'])[0] >= thr
            b = score_image(model, fn(it['img']))[0] >= thr
            changed += int(a != b)
        out[lab] = dict(flipped=changed, n=len(its), fraction=changed / max(1, len(its)))
    return out


def soft_mask(h, w, rng, max_frac=0.25, min_frac=0.08):
    frac = rng.uniform(min_frac, max_frac)
    aspect = rng.uniform(0.6, 1.6)
    rh = int(min(h, round(np.sqrt(frac * h * w * aspect))))
    rw = int(min(w, round(frac * h * w / max(1, rh))))
    y, x = int(rng.integers(0, h - rh + 1)), int(rng.integers(0, w - rw + 1))
    m = np.zeros((h, w), np.uint8)
    m[y:y + rh, x:x + rw] = 255
    m = np.asarray(Image.fromarray(m).filter(ImageFilter.GaussianBlur(2)), np.float32) / 255
    return m, (y, x, rh, rw)


def localisation(model, hosts, donor_fn, rng):
    """Blend a region (8-25 % of the area) from a donor into each authentic host; a hit = the top-scoring tile has
    at least a quarter of its area inside the region. chance = the same criterion for a random tile."""
    hits, chance, n = 0, 0.0, 0
    for it in hosts:
        img = it['img']
        donor = donor_fn(it, rng)
        if donor is None:
            continue
        h, w = img.shape[:2]
        m, (y, x, rh, rw) = soft_mask(h, w, rng)
        mixed = np.clip(np.round(img * (1 - m[..., None]) + donor[:h, :w] * m[..., None]), 0, 255).astype(np.uint8)
        _, probs, origins = score_image(model, mixed)
        inside = np.array([tile_in_region(ty, tx, y, x, rh, rw) for (ty, tx) in origins])
        hits += int(inside[int(np.argmax(probs))])
        chance += inside.mean()
        n += 1
    return dict(hit_rate=hits / max(1, n), chance=chance / max(1, n), n=n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--name', required=True)
    ap.add_argument('--quick', action='store_true', help='AUCs and thresholds only')
    a = ap.parse_args()
    torch.set_num_threads(int(os.environ.get('TORCH_THREADS', '1')))
    seed_all(0)
    rng = np.random.default_rng(0)
    t0 = time.time()
    model, ck = load_model(a.name)
    with open(os.path.join(CACHE, 'train.pkl'), 'rb') as f:
        train = pickle.load(f)
    with open(os.path.join(CACHE, 'modern.pkl'), 'rb') as f:
        modern = pickle.load(f)
    val = [it for it in train if (it['label'], it['source']) in VAL_SOURCES]
    trained_modern = [s for s in ck['args'].get('modern_sources', '').split(',') if s]
    modern = [it for it in modern if not (it['label'] == 'ai' and it['source'] in trained_modern)]
    # SD-CheatSheet cells are two per grid; the validation split has none, so each file is scored once.
    sc_val = [(it['label'], it['source'], score_image(model, it['img'])[0]) for it in val]
    sc_mod = [(it['label'], it['source'], score_image(model, it['img'])[0]) for it in modern]
    thr = choose_thresholds(sc_val)
    res = dict(model=a.name, train_args=ck['args'], steps=ck['steps'], modern_sources_trained_on_and_excluded=trained_modern,
               contract=dict(tileSize=TILE, stride=STRIDE, topK=TOP_K),
               thresholds=thr,
               validation=dict(per_source=per_source_auc(sc_val), at_decision=rates(sc_val, thr['decision'])),
               modern=dict(per_source=per_source_auc(sc_mod), at_decision=rates(sc_mod, thr['decision'])))
    # format control: modern/ authentic photos are JPEG and most AI files PNG; re-encode both classes at q90
    sc_mod90 = [(it['label'], it['source'], score_image(model, jpeg(it['img'], 90))[0]) for it in modern]
    res['modern_jpeg90_both_classes'] = dict(per_source=per_source_auc(sc_mod90))
    # twins of the held-out authentic sources (never trained on): does the model see its own fakes?
    twin_scores = {}
    for v in ck['args'].get('twins', '').split(','):
        p = os.path.join(CACHE, f'twins_{v}.pkl')
        if v and os.path.exists(p):
            with open(p, 'rb') as f:
                tw = pickle.load(f)
            vr = [it for it in val if it['label'] == 'real']
            s_tw = [score_image(model, tw[it['name']])[0] for it in vr]
            s_re = [s for (lab, _, s) in sc_val if lab == 'real']
            twin_scores[v] = dict(auc_vs_their_originals=auc(s_tw, s_re), n=len(s_tw))
    res['validation_twins'] = twin_scores
    res['file_scores'] = dict(validation=[dict(label=l, source=s, score=round(v, 5)) for (l, s, v) in sc_val],
                              modern=[dict(label=l, source=s, score=round(v, 5)) for (l, s, v) in sc_mod])
    print('thresholds', thr)
    print('val', {k: round(v['auc'], 3) for k, v in res['validation']['per_source'].items()})
    print('modern', {k: round(v['auc'], 3) for k, v in res['modern']['per_source'].items()})
    print('modern q90', {k: round(v['auc'], 3) for k, v in res['modern_jpeg90_both_classes']['per_source'].items()})
    print('twins', twin_scores, flush=True)
    if not a.quick:
        both = val + modern
        res['robustness'] = dict(
            jpeg70=flips(model, both, thr['decision'], lambda im: jpeg(im, 70)),
            resize50=flips(model, both, thr['decision'], lambda im: resize(im, 0.5)),
            note='fraction of files (validation split + modern/) whose decision at the decision threshold changes')
        print('robustness', res['robustness'], flush=True)
        hosts = [it for it in modern if it['label'] == 'real'] + [it for it in val if it['label'] == 'real']
        twins = {}
        for v in ('ldm16', 'gan8', 'ldm4'):
            p = os.path.join(CACHE, f'twins_{v}.pkl')
            if os.path.exists(p):
                with open(p, 'rb') as f:
                    twins[v] = pickle.load(f)
        modern_ai = [it['img'] for it in modern if it['label'] == 'ai']

        def ai_donor(it, r):
            h, w = it['img'].shape[:2]
            cands = [d for d in modern_ai if d.shape[0] >= h and d.shape[1] >= w]
            return cands[r.integers(len(cands))] if cands else None
        loc = {'modern_ai_region_in_authentic': localisation(model, hosts, ai_donor, rng)}
        if twins:
            v = sorted(twins)[0]
            val_hosts = [it for it in val if it['label'] == 'real']
            loc[f'reconstructed_region_{v}_in_heldout_authentic'] = localisation(
                model, val_hosts, lambda it, r: twins[v].get(it['name']), rng)
        res['localisation'] = loc
        print('localisation', loc, flush=True)
    res['eval_seconds'] = round(time.time() - t0)
    save_json(os.path.join(RUNS, a.name, 'eval.json' if not a.quick else 'eval-quick.json'), res)


if __name__ == '__main__':
    main()
