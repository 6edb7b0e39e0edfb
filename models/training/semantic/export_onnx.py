# Exports a semantic-branch run to ONNX: input "image" float32 [N, 224, 224, 3] = RGB pixels / 255 of the whole
# picture resized to 224x224 (sem_common.to224), output "logit" [N] (AI vs real). Checks parity against PyTorch with
# onnxruntime-node (the product's runtime; 1 thread) on validation / modern/ files and times it.
#   /usr/bin/python3 export_onnx.py RUN   -> out/<RUN>.onnx, out/<RUN>-parity.json
import json
import os
import subprocess
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn

import keras_torch
import sem_common as S
import train


class Full(nn.Module):
    def __init__(self, head, start):
        super().__init__()
        self.trunk = keras_torch.KerasGraph('mobilenet_v2', end=start)  # the frozen layers up to the trained ones
        self.head = head

    def forward(self, x):
        return self.head(self.trunk(x.permute(0, 3, 1, 2)))


ORT = r'''
const ort = require(process.env.ORT_PATH);
const fs = require('fs');
(async () => {
  const [model, inp, n] = process.argv.slice(1);
  const s = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const x = new Float32Array(fs.readFileSync(inp).buffer.slice(0));
  const N = Number(n), per = 224 * 224 * 3, out = [], times = [];
  for (let i = 0; i < N; i++) {
    const t = new ort.Tensor('float32', x.subarray(i * per, (i + 1) * per), [1, 224, 224, 3]);
    const t0 = process.hrtime.bigint();
    const r = await s.run({ image: t });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    out.push(r.logit.data[0]);
  }
  console.log(JSON.stringify({ out, times }));
})();
'''


def main():
    import sys
    run = sys.argv[1]
    torch.set_num_threads(1)
    st = torch.load(os.path.join(S.RUNS, run, 'ckpt.pt'))
    head = train.Head(st['start'])
    head.load_state_dict(st['state'])
    m = Full(head, st['start']).eval()
    onnx_path = os.path.join(S.OUT, run + '.onnx')
    torch.onnx.export(m, torch.zeros(1, 224, 224, 3), onnx_path, input_names=['image'], output_names=['logit'],
                      dynamic_axes={'image': {0: 'n'}, 'logit': {0: 'n'}}, opset_version=13)
    import onnx
    onnx.checker.check_model(onnx.load(onnx_path))
    files = [t[3] for t in S.eval_files('val_raw')[::60]] + [t[3] for t in S.eval_files('modern_raw')[::30]]
    x = np.stack([S.to224(S.decode(open(p, 'rb').read())) for p in files]).astype(np.float32) / 255.0
    with torch.no_grad():
        t0 = time.time()
        pt = np.concatenate([m(torch.from_numpy(x[i:i + 1])).numpy() for i in range(len(x))])
        pt_ms = (time.time() - t0) / len(x) * 1000
    work = tempfile.mkdtemp()
    x.tofile(os.path.join(work, 'x.bin'))
    ort_path = os.path.join(S.common.REPO, 'node_modules', 'onnxruntime-node')
    r = subprocess.run(['node', '-e', ORT, onnx_path, os.path.join(work, 'x.bin'), str(len(x))],
                       env=dict(os.environ, ORT_PATH=ort_path), capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(r.stderr)
    o = json.loads(r.stdout)
    d = np.abs(np.array(o['out']) - pt)
    res = dict(run=run, onnx=os.path.relpath(onnx_path, S.HERE), bytes=os.path.getsize(onnx_path), files=len(files),
               max_abs_logit_diff=float(d.max()), mean_abs_logit_diff=float(d.mean()),
               ort_ms_per_image_1thread_median=float(np.median(o['times'][1:])),
               torch_ms_per_image_1thread=round(pt_ms, 1),
               note='onnxruntime-node, intraOpNumThreads 1, batch 1, the 224x224 input only (decode + resize not timed); '
                    'machine shared with other jobs')
    json.dump(res, open(os.path.join(S.OUT, run + '-parity.json'), 'w'), indent=1)
    print(json.dumps(res, indent=1))


if __name__ == '__main__':
    main()
