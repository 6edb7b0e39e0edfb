# Writes test/fixtures/photo-guard/photo-guard.json: the guard's features and score (features.py, results.json) for the
# committed fixtures, which photo-guard.test.ts reproduces with the product's decoder and code. PNGs decode to the
# same pixels in PIL and sharp; the camera JPEGs may differ by a rounding here and there (the test allows 0.01).
#   /usr/bin/python3 parity.py
import json
import os

import numpy as np
from PIL import Image, ImageOps

import features as F

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
FIX = [('photo-guard', f) for f in ('chart-563x293.png', 'ui-report-497x702.png')]
FIX += [('model', f) for f in ('grain-shapes-480x384.png', 'shapes-320x256.png',
                             'noise-192.png', 'upsampled-noise-256.png')]
FIX += [('capture', f) for f in sorted(os.listdir(os.path.join(REPO, 'test', 'fixtures', 'capture'))) if f.endswith('.jpg')]


def main():
    res = json.load(open(os.path.join(HERE, 'results.json')))
    coef, b, thr = np.array(res['coef']), res['intercept'], res['threshold']
    out = []
    for folder, name in FIX:
        im = ImageOps.exif_transpose(Image.open(os.path.join(REPO, 'test', 'fixtures', folder, name))).convert('RGB')
        f = F.features(np.asarray(im))
        z = float(F.vector(f) @ coef + b)
        out.append(dict(file='%s/%s' % (folder, name), features=f, score=z, notPhotographic=z > thr))
        print(name, {k: round(v, 3) for k, v in f.items()}, round(z, 2), z > thr)
    json.dump(dict(guard=dict(features=res['features'], coef=res['coef'], intercept=b, threshold=thr), fixtures=out),
              open(os.path.join(REPO, 'test', 'fixtures', 'photo-guard', 'photo-guard.json'), 'w'), indent=1)


if __name__ == '__main__':
    main()
