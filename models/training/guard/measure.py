# Computes the guard's features (features.py) for every set it is fitted or measured on, into
# .cache/guard/features-<set>.json: [{label, source, path, f: {...}}]
#   train       photos of both classes from the training subsample (sem_common.train_subsample), each through
#               data/transforms.py (seed 'guard'), as the detector's training saw them
#   val_raw, val_tx, modern_raw, modern_jpeg90: the detector's evaluation sets, built as eval_v1.py builds them
#   nonphoto    .data/nonphoto (make_nonphoto.py) as rendered, and each once more through transforms.py
#   shots       screenshots of photographs of both classes: 100 val_raw files per class, each pasted into a
#               documentation screenshot (light or dark) so that it covers 30 / 50 / 70 / 90 % of it, saved as JPEG q85
#   OMP_NUM_THREADS=1 nice /usr/bin/python3 measure.py [--train 1200] [--sets ...]
import argparse
import io
import json
import os
import sys
import time

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'semantic'))
import sem_common as S  # noqa: E402
import features as F  # noqa: E402

OUT = os.path.join(S.common.CACHE, 'guard')
NONPHOTO = os.path.join(S.TRAINING, '.data', 'nonphoto')


def tx_arr(im, key):
    b, _ = S.transforms.transform(im, 'guard', key)
    return np.asarray(Image.open(io.BytesIO(b)).convert('RGB'))


def shot(path, cover, key):
    """A screenshot of a photograph: the picture, aspect kept, covering `cover` of a docs screenshot's area."""
    import random
    r = random.Random(key)
    docs = sorted(f for f in os.listdir(os.path.join(NONPHOTO, 'docs')) if f.endswith('.png'))
    bg = Image.open(os.path.join(NONPHOTO, 'docs', r.choice(docs))).convert('RGB')
    im = Image.fromarray(S.decode(open(path, 'rb').read()))
    W, H = bg.size
    s = (cover * W * H / (im.width * im.height)) ** 0.5
    w, h = max(8, int(im.width * s)), max(8, int(im.height * s))
    if w > W or h > H:  # a picture wider than the window: the window grows around it
        f = max(w / W, h / H)
        bg = bg.resize((int(W * f) + 1, int(H * f) + 1), Image.BILINEAR)
        W, H = bg.size
    bg.paste(im.resize((w, h), Image.BILINEAR), (r.randint(0, W - w), r.randint(0, H - h)))
    b = io.BytesIO()
    bg.save(b, 'JPEG', quality=85)
    return np.asarray(Image.open(io.BytesIO(b.getvalue())).convert('RGB'))


def run(name, items):
    out = os.path.join(OUT, 'features-%s.json' % name)
    if os.path.exists(out):
        return
    t0 = time.time()
    rows = []
    for label, source, path, make in items:
        try:
            f = F.features(make())
        except Exception as e:  # noqa: BLE001
            print('skip', path, e, flush=True)
            continue
        if f is not None:
            rows.append(dict(label=label, source=source, path=path, f=f))
    json.dump(rows, open(out, 'w'))
    print(name, len(rows), '%.0f s' % (time.time() - t0), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--train', type=int, default=1200)
    ap.add_argument('--sets', default='nonphoto,val_raw,val_tx,modern_raw,modern_jpeg90,train')
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    for name in a.sets.split(','):
        if name == 'train':
            files = S.train_subsample(a.train, 7)
            run(name, [(lab, src, p, (lambda p=p: tx_arr(S.transforms.open_image(open(p, 'rb').read()).convert('RGB'), p)))
                       for lab, src, p in files])
        elif name == 'shots':
            import random
            rows = S.eval_files('val_raw')
            items = []
            for lab in ('real', 'ai'):
                pick = [r for r in rows if r[0] == lab]
                random.Random('shots').shuffle(pick)
                for label, src, rel, p in pick[:100]:
                    for cover in (0.3, 0.5, 0.7, 0.9):
                        items.append((label, '%s@%d' % (src, cover * 100), rel,
                                      (lambda p=p, c=cover, k=rel: shot(p, c, k))))
            run(name, items)
        elif name == 'nonphoto':
            items = []
            for g in sorted(os.listdir(NONPHOTO)):
                for fn in sorted(f for f in os.listdir(os.path.join(NONPHOTO, g)) if f.endswith('.png')):
                    p = os.path.join(NONPHOTO, g, fn)
                    items.append(('nonphoto', g, p, (lambda p=p: np.asarray(Image.open(p).convert('RGB')))))
                    items.append(('nonphoto', g + '_tx', p, (lambda p=p: tx_arr(Image.open(p).convert('RGB'), p))))
            run(name, items)
        else:
            run(name, [(lab, src, rel, (lambda n=name, p=p: S.eval_input(n, open(p, 'rb').read(), p)))
                       for lab, src, rel, p in S.eval_files(name)])


if __name__ == '__main__':
    main()
