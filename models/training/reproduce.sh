#!/bin/sh
# Rebuilds the shipped detector and every figure of its model card from ../shared/datasets, on CPU.
# Run from models/training/: ./reproduce.sh   (TORCH_THREADS=N to use more cores; default 1)
set -eu
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
NAME=${NAME:-shipped}
$PY cache_data.py
$PY train_ae.py ldm16 --seconds 420 --lr 1e-3
$PY train_ae.py sub8 --seconds 420 --lr 1e-3
$PY make_twins.py --variants ldm16,sub8
$PY train_detector.py --name "$NAME" --minutes 13 --width 16 --twins ldm16,sub8
$PY evaluate.py --name "$NAME"
$PY export.py --name "$NAME"
node bench-speed.mjs
