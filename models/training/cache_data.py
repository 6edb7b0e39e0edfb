# Decodes train/ and modern/ once into uint8 arrays under .cache/ (git-ignored), so training never re-reads files.
import os
import pickle
import random
import sys

import numpy as np

from common import CACHE, list_files, load_rgb

CELL_CROP = 384  # centre crop of each 512x512 SD-CheatSheet cell (memory bound)


def main():
    os.makedirs(CACHE, exist_ok=True)
    rng = random.Random(0)
    for split in ('train', 'modern'):
        out = os.path.join(CACHE, f'{split}.pkl')
        if os.path.exists(out):
            print('exists', out)
            continue
        items = []
        for label, src, path in list_files(split):
            img = load_rgb(path)
            fmt = os.path.splitext(path)[1].lower().lstrip('.')
            name = os.path.basename(path)
            if split == 'train' and src == 'sd15_cheatsheet' and img.shape[0] >= 1024 and img.shape[1] >= 1024:
                # 2x2 grid of four 512 renders: keep two random cells, centre-cropped
                cells = [(0, 0), (0, 512), (512, 0), (512, 512)]
                for k, (y, x) in enumerate(rng.sample(cells, 2)):
                    o = (512 - CELL_CROP) // 2
                    items.append(dict(label=label, source=src, name=f'{name}#cell{k}', fmt=fmt,
                                      img=img[y + o:y + o + CELL_CROP, x + o:x + o + CELL_CROP].copy()))
            else:
                items.append(dict(label=label, source=src, name=name, fmt=fmt, img=img))
        with open(out, 'wb') as f:
            pickle.dump(items, f, protocol=4)
        print(split, len(items), 'images', sum(i['img'].nbytes for i in items) / 1e6, 'MB')


if __name__ == '__main__':
    sys.exit(main())
