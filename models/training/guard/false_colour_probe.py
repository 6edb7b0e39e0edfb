# A probe, not a check the product runs (twenty-third session): how far a picture's colour is a function of its
# brightness, as in a thermal camera's false-colour rendering (ironbow, rainbow, white-hot palettes), where a photo's
# or a generated picture's colour varies on its own. Thermal pictures whose radiometric data was stripped by a
# re-encode are read by the pixel detector, which calls some of them AI (Data 2.10 at q90: 1.6.0 6 of 27 FLIR
# pictures, 1.5.1 3); a check on this measure could take them out as thermal.ts takes out those with their data.
# Measure: the picture brought to 256 px, its chroma (RGB minus luma) explained by 64 luma bins (1 - within-bin
# variance / total), for pictures with colour (mean max-min channel spread > 12). Printed per set as quantiles.
#   cd models/training/.data && /usr/bin/python3 ../guard/false_colour_probe.py
import glob
import io
import random

import numpy as np
from PIL import Image


def explained(im):
    im = im.convert('RGB')
    im.thumbnail((256, 256))
    x = np.asarray(im, np.float32).reshape(-1, 3)
    spread = float(np.mean(x.max(1) - x.min(1)))
    luma = x @ np.array([0.299, 0.587, 0.114], np.float32)
    c = x - luma[:, None]
    total = c.var(axis=0).sum() + 1e-6
    bins = np.digitize(luma, np.quantile(luma, np.linspace(0, 1, 65)[1:-1]))
    within = sum(c[bins == k].var(axis=0).sum() * np.mean(bins == k) for k in np.unique(bins))
    return 1 - within / total, spread


def q90(path):
    buf = io.BytesIO()
    Image.open(path).convert('RGB').save(buf, 'JPEG', quality=90)
    return Image.open(io.BytesIO(buf.getvalue()))


def main():
    random.seed(0)
    pick = lambda pat: [p for p in glob.glob(pat) if p.lower().endswith(('.jpg', '.jpeg', '.png'))]
    sets = {
        'Data 2.10 thermal (tuning)': pick('measureodd/real/thermal/*'),
        'Data 2.11 thermal (held out)': pick('measureodd211/real/thermal/*'),
        'photos, 150 of .data/images/real': random.sample(pick('images/real/*/*'), 150),
        'AI, 150 of .data/images/ai': random.sample(pick('images/ai/*/*'), 150),
    }
    for name, files in sets.items():
        for variant, load in (('as is', Image.open), ('q90', q90)):
            v = np.array([explained(load(f)) for f in files])
            col = v[v[:, 1] > 12][:, 0]
            print('%-34s %-5s %3d files, %3d with colour; quantiles 5/25/50/75/95 %s; >= 0.90 %.3f, >= 0.95 %.3f' % (
                name, variant, len(v), len(col), np.round(np.quantile(col, [0.05, 0.25, 0.5, 0.75, 0.95]), 3),
                np.mean(col >= 0.90), np.mean(col >= 0.95)))


if __name__ == '__main__':
    main()
