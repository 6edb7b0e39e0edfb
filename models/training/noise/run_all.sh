#!/bin/sh
# The recorded runs, in order (the cache first: cache.py). Each run writes runs/noise-<model><tag>/.
set -e
cd "$(dirname "$0")"
P="env OMP_NUM_THREADS=1 nice -n 10 /usr/bin/python3"
$P train.py --models lr,mlp,gbt                      # both views (raw + transformed)
$P train.py --models lr,gbt --views tx --tag=-tx     # transformed views only (as the other branches train)
$P train.py --models lr,gbt --views raw --tag=-raw   # untransformed originals only
$P train.py --models lr --only jpeg_grid --tag=-jpeggrid   # baseline: the 8x8 JPEG grid features alone
$P fuse3.py noise-gbt noise-fuse-art --inputs noise,art
$P fuse3.py noise-gbt noise-fuse-f110 --inputs noise,f110
$P fuse3.py noise-gbt noise-fuse-f110-art --inputs noise,f110,art
$P fuse3.py noise-gbt-tx noise-tx-fuse-art --inputs noise,art          # the validation-best noise model
$P fuse3.py noise-gbt-tx noise-tx-fuse-f110 --inputs noise,f110
$P fuse3.py noise-gbt-tx noise-tx-fuse-f110-art --inputs noise,f110,art
$P fuse3.py noise-gbt-tx noise-ref-f110 --inputs f110                        # references: the 1.1.0 score alone,
$P fuse3.py noise-gbt-tx noise-ref-f110-art --inputs f110,art                # and with the artefact logit again
