#!/bin/sh
# Rebuilds the shipped detector and every figure of its model card from ../shared/datasets, on CPU.
# Run from models/training/:  ./reproduce.sh          (the shipped model, its figures, the speed benchmark)
#                             ABLATIONS=1 ./reproduce.sh (also the other variants of the card's "what was tried")
# TORCH_THREADS=N uses more cores (default 1: the build machine is shared; more threads only run faster).
set -eu
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
NAME=${NAME:-shipped}
COMMON="--steps 3000 --width 16"
$PY cache_data.py
$PY train_ae.py ldm16 --steps 600 --lr 1e-3
$PY train_ae.py sub8 --steps 600 --lr 1e-3
$PY make_twins.py --variants ldm16,sub8
$PY train_detector.py --name "$NAME" $COMMON --twins ldm16,sub8 --p-noise 0.3
$PY evaluate.py --name "$NAME"
$PY export.py --name "$NAME"
$PY heatmap_coverage.py --name "$NAME" --n 200
node bench-speed.mjs
if [ "${ABLATIONS:-0}" = 1 ]; then
  $PY train_detector.py --name v2 $COMMON --twins ldm16,sub8                      # no grain
  $PY train_detector.py --name abl-notwins $COMMON --twins ""                     # no self-made fakes
  $PY train_detector.py --name v2-perm --permissive $COMMON --twins ldm16,sub8    # permissive sources only
  $PY train_detector.py --name v4-perm-grain --permissive $COMMON --twins ldm16,sub8 --p-noise 0.3
  $PY train_detector.py --name v3-comfy --modern-sources comfyui_examples $COMMON --twins ldm16,sub8
  $PY train_detector.py --name v3-grain-seed1 --seed 1 $COMMON --twins ldm16,sub8 --p-noise 0.3   # seed noise
  $PY train_detector.py --name v5-grain60 $COMMON --twins ldm16,sub8 --p-noise 0.6
  $PY train_detector.py --name v6-fft --mode npr+fft $COMMON --twins ldm16,sub8 --p-noise 0.3  # + spectral branch
  VERACITY_TILE=128 $PY train_detector.py --name v7-tile128 $COMMON --twins ldm16,sub8 --p-noise 0.3  # larger crops
  $PY train_detector.py --name v8-w32 --steps 3000 --width 32 --twins ldm16,sub8 --p-noise 0.3   # 4x the parameters
  $PY train_detector.py --name v8-w32-seed1 --seed 1 --steps 3000 --width 32 --twins ldm16,sub8 --p-noise 0.3
  for n in v2 abl-notwins v2-perm v4-perm-grain v3-comfy v3-grain-seed1 v5-grain60 v6-fft v8-w32 v8-w32-seed1; do $PY evaluate.py --name $n --quick; done
  VERACITY_TILE=128 $PY evaluate.py --name v7-tile128 --quick
  $PY evaluate.py --name v2
  # v1 (time-bounded, not reproducible) keeps its recorded figures when runs/v1 is absent
  $PY variants_table.py v1 abl-notwins v2 v2-perm v3-comfy "$NAME:v3-grain" v4-perm-grain v3-grain-seed1 v5-grain60 v6-fft v7-tile128 v8-w32 v8-w32-seed1
fi
