# Tenth session's probe (README "an autoencoder's reconstruction error as a fourth branch"): AEROBLADE-style
# reconstruction error of madebyollin/taesd's TAEF2 (FLUX.2's tiny autoencoder, MIT), per file from up to 4
# native-resolution 256-px tiles. Writes {set: [{label, source, path, l1, hp, ge}]} (per tile: mean absolute error,
# the error's high-pass part, the picture's own high-pass energy). At most PER files per source, in score-file order.
# The weights are not in the repo: fetch github:madebyollin/taesd (commit 5cccb12d...), then
#   mkdir -p $TAESD && for f in taesd.py taef2_encoder.pth taef2_decoder.pth; do git -C MIRROR show HEAD:$f > $TAESD/$f; done
#   TAESD=$TAESD PER=20 /usr/bin/python3 ae_probe.py val_raw,val21_raw,val_tx OUT.json; /usr/bin/python3 ae_probe_analyse.py OUT.json
import json
import os
import sys
import time

import numpy as np
import torch
from PIL import Image

import sem_common as S

sys.path.insert(0, os.environ.get('TAESD', '/tmp/taesd'))
from taesd import TAESD  # noqa: E402

torch.set_num_threads(int(os.environ.get('T', '2')))
TILE = 256


def tiles(a):
    h, w = a.shape[:2]
    if h < TILE or w < TILE:
        s = TILE / min(h, w)
        a = np.asarray(Image.fromarray(a).resize((max(TILE, round(w * s)), max(TILE, round(h * s))), Image.BICUBIC))
        h, w = a.shape[:2]
    ys = np.linspace(0, h - TILE, 2).astype(int) if h >= 2 * TILE else [(h - TILE) // 2]
    xs = np.linspace(0, w - TILE, 2).astype(int) if w >= 2 * TILE else [(w - TILE) // 2]
    return np.stack([a[y:y + TILE, x:x + TILE] for y in ys for x in xs])


def main():
    d = os.environ.get('TAESD', '/tmp/taesd')
    ae = TAESD(os.path.join(d, 'taef2_encoder.pth'), os.path.join(d, 'taef2_decoder.pth')).eval()
    sets, out = sys.argv[1].split(','), sys.argv[2]
    per_source = int(os.environ.get('PER', '20'))
    res, t0 = {}, time.time()
    for name in sets:
        per = {}
        for lab, src, rel, ab in S.eval_files(name):
            per.setdefault((lab, src), []).append((rel, ab))
        pick = [(k[0], k[1], r, a) for k, v in per.items() for r, a in v[:per_source]]
        R = []
        for i, (lab, src, rel, ab) in enumerate(pick):
            x = torch.from_numpy(tiles(S.eval_input(name, open(ab, 'rb').read(), ab))).permute(0, 3, 1, 2).float() / 255
            with torch.no_grad():
                y = ae.decoder(ae.encoder(x)).clamp(0, 1)
            hp_of = lambda t: (t - torch.nn.functional.avg_pool2d(t, 5, 1, 2, count_include_pad=False)).abs().mean((1, 2, 3))
            R.append(dict(label=lab, source=src, path=rel, l1=(y - x).abs().mean((1, 2, 3)).tolist(),
                          hp=hp_of((y - x).mean(1, keepdim=True)).tolist(), ge=hp_of(x.mean(1, keepdim=True)).tolist()))
            if i % 50 == 0:
                print(name, i, len(pick), round(time.time() - t0), flush=True)
        res[name] = R
        json.dump(res, open(out, 'w'))
    print('done', round(time.time() - t0))


if __name__ == '__main__':
    main()
