# Exports a semantic-branch run to ONNX: input "image" float32 [N, S, S, 3] = RGB pixels / 255 of the whole
# picture resized to SxS (sem_common.to224; S = 224 for MobileNetV2, 299 for InceptionV3 with SEM_MODEL=inception_v3),
# output "logit" [N] (AI vs real). Checks parity against PyTorch with onnxruntime-node (the product's runtime;
# 1 thread) on validation / modern/ files and times it.
#   /usr/bin/python3 export_onnx.py RUN [--fp16]  -> out/<RUN>.onnx, out/<RUN>-parity.json
# --fp16 stores the large weight tensors as float16 with a Cast to float32 in front of each (onnxruntime folds the
# casts when the session is created, so it computes in float32): InceptionV3's 22 M parameters are 87 MB in float32,
# over the 60 MB a model file may weigh, and 44 MB so.
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn

import keras_torch
import sem_common as S
import train
from onnx_scores import run_onnx


class Full(nn.Module):
    def __init__(self, head, start):
        super().__init__()
        self.trunk = keras_torch.KerasGraph(S.MODEL, end=start)  # the frozen layers up to the trained ones
        self.head = head

    def forward(self, x):
        return self.head(self.trunk(x.permute(0, 3, 1, 2)))


def to_fp16(path, min_elements=1024, exact=False):
    """Float32 initializers of at least min_elements values -> float16 + a Cast node (to float) named as before;
    exact: refuse a tensor that float16 does not hold exactly (the model was rounded first)."""
    import onnx
    from onnx import helper, numpy_helper
    m = onnx.load(path)
    g = m.graph
    keep, casts, n = [], [], 0
    for init in g.initializer:
        a = numpy_helper.to_array(init)
        if a.dtype == np.float32 and a.size >= min_elements:
            if exact and not np.array_equal(a.astype(np.float16).astype(np.float32), a):
                raise SystemExit('initializer %s is not float16-exact' % init.name)
            h = numpy_helper.from_array(a.astype(np.float16), init.name + '__fp16')
            keep.append(h)
            casts.append(helper.make_node('Cast', [h.name], [init.name], to=onnx.TensorProto.FLOAT, name=init.name + '__cast'))
            n += a.size
        else:
            keep.append(init)
    del g.initializer[:]
    g.initializer.extend(keep)
    nodes = list(g.node)
    del g.node[:]
    g.node.extend(casts + nodes)
    onnx.save(m, path)
    return n


def round_fp16(m):
    """Every weight and buffer rounded to the nearest float16 value (kept as float32): the model that ships with
    --fp16, so PyTorch and the exported file hold the same numbers and parity stays exact."""
    with torch.no_grad():
        for t in list(m.parameters()) + list(m.buffers()):
            t.copy_(t.half().float())
    return m


def export(m, onnx_path, fp16=False):
    """With fp16, BatchNorm is exported as it is (not folded into the convolutions, which would make new float32
    numbers that float16 cannot hold), so every initializer is one of the model's own float16-exact tensors."""
    kw = dict(training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False) if fp16 else {}
    torch.onnx.export(m, torch.zeros(1, S.SIZE, S.SIZE, 3), onnx_path, input_names=['image'], output_names=['logit'],
                      dynamic_axes={'image': {0: 'n'}, 'logit': {0: 'n'}}, opset_version=13, **kw)


def main():
    import sys
    run = sys.argv[1]
    fp16 = '--fp16' in sys.argv[2:]
    torch.set_num_threads(1)
    st = torch.load(os.path.join(S.RUNS, run, 'ckpt.pt'))
    head = train.Head(st['start'])
    head.load_state_dict(st['state'])
    m = Full(head, st['start']).eval()
    files = [t[3] for t in S.eval_files('val_raw')[::60]] + [t[3] for t in S.eval_files('modern_raw')[::30]]
    u8 = np.stack([S.to224(S.decode(open(p, 'rb').read())) for p in files])
    x = u8.astype(np.float32) / 255.0

    @torch.no_grad()
    def logits():  # one picture at a time, as the product runs it
        return np.concatenate([m(torch.from_numpy(x[i:i + 1])).numpy() for i in range(len(x))])

    rounding = None
    if fp16:  # what float16 storage does to the logits of the trained (float32) model, on the same files
        before = logits()
        round_fp16(m)
        after = logits()
        rounding = dict(max_abs_logit_change=float(np.abs(after - before).max()),
                        mean_abs_logit_change=float(np.abs(after - before).mean()))
    onnx_path = os.path.join(S.OUT, run + '.onnx')
    export(m, onnx_path, fp16)
    import onnx
    halved = to_fp16(onnx_path, exact=True) if fp16 else 0
    onnx.checker.check_model(onnx.load(onnx_path))
    t0 = time.time()
    pt = logits()
    pt_ms = (time.time() - t0) / len(x) * 1000
    ort_out, ort_times = run_onnx(u8, onnx_path, timed=True)
    d = np.abs(ort_out - pt)
    res = dict(run=run, model=S.MODEL, size=S.SIZE, fp16_weights=halved, fp16_rounding=rounding, onnx=os.path.relpath(onnx_path, S.HERE),
               bytes=os.path.getsize(onnx_path), files=len(files),
               max_abs_logit_diff=float(d.max()), mean_abs_logit_diff=float(d.mean()),
               ort_ms_per_image_1thread_median=float(np.median(ort_times[1:])),
               torch_ms_per_image_1thread=round(pt_ms, 1),
               note='onnxruntime-node, intraOpNumThreads 1, batch 1, the SxS input only (decode + resize not timed); '
                    'machine shared with other jobs')
    json.dump(res, open(os.path.join(S.OUT, run + '-parity.json'), 'w'), indent=1)
    print(json.dumps(res, indent=1))


if __name__ == '__main__':
    main()
