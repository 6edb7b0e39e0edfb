# Rebuilds nsfwjs 4.4.0's pretrained Keras models as float weights, from the npm tarball (never from git):
#   cd /tmp && npm pack nsfwjs@4.4.0          # or let this script run `npm pack` itself
#   /usr/bin/python3 nsfwjs_weights.py [/tmp/nsfwjs-4.4.0.tgz] [--models mobilenet_v2,inception_v3]
# Checks the tarball against the registry's sha512 integrity (npm view nsfwjs@4.4.0 dist), unpacks the bundled
# TF.js models (dist/models/<name>/model.min.js: {modelTopology, weightsManifest}; group1-shard*.min.js: base64 of
# the weight file), and dequantises every uint8 weight as q * scale + min (the weightsManifest's `quantization`).
# Writes out/<name>.json (Keras topology + weight names/shapes) and out/<name>.npz (float32, Keras layouts);
# out/ is git-ignored.
import base64
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'out')
PACKAGE = 'nsfwjs@4.4.0'
INTEGRITY = 'sha512-krC1fgeTLXtZwgdpKJ0jm7hqv0gTSRQQRL+FhOaxaJ9Wj92t42BO3csO2odwgTAgZgf2RvkwPtp0R8Aa7dc+MA=='

# Each bundle is a browserify UMD module; node evaluates it and prints what it exports.
NODE_DUMP = r'''
const fs = require('fs');
const [modelJs, outJson, ...shards] = process.argv.slice(1);
const m = require(modelJs);
fs.writeFileSync(outJson, JSON.stringify({modelTopology: m.modelTopology, weightsManifest: m.weightsManifest}));
for (const s of shards) {
  const b64 = require(s);
  fs.writeFileSync(s + '.bin', Buffer.from(typeof b64 === 'string' ? b64 : b64.default, 'base64'));
}
'''


def check_integrity(path):
    algo, want = INTEGRITY.split('-', 1)
    h = hashlib.new(algo)
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    got = base64.b64encode(h.digest()).decode()
    if got != want:
        raise SystemExit('integrity mismatch: %s-%s != %s' % (algo, got, INTEGRITY))
    return INTEGRITY


def dequantise(raw, spec):
    n = int(np.prod(spec['shape'])) if spec['shape'] else 1
    q = spec.get('quantization')
    if q:
        dt = {'uint8': np.uint8, 'uint16': np.uint16, 'float16': np.float16}[q['dtype']]
        a = np.frombuffer(raw, dtype=dt, count=n)
        nbytes = n * np.dtype(dt).itemsize
        if q['dtype'] == 'float16':
            v = a.astype(np.float32)
        else:
            v = (a.astype(np.float64) * q['scale'] + q['min']).astype(np.float32)
    else:
        a = np.frombuffer(raw, dtype={'float32': np.float32, 'int32': np.int32}[spec['dtype']], count=n)
        nbytes = n * 4
        v = a.astype(np.float32)
    return v.reshape(spec['shape']), nbytes


def convert(pkg_dir, name):
    d = os.path.join(pkg_dir, 'package', 'dist', 'models', name)
    shards = sorted(p for p in os.listdir(d) if p.startswith('group1-shard'))
    # shard order: group1-shard1ofN ... NofN
    shards.sort(key=lambda p: int(p.split('shard')[1].split('of')[0]))
    js = os.path.join(d, 'model.json')
    subprocess.run(['node', '-e', NODE_DUMP, os.path.join(d, 'model.min.js'), js] + [os.path.join(d, s) for s in shards],
                   check=True)
    model = json.load(open(js))
    buf = b''.join(open(os.path.join(d, s + '.bin'), 'rb').read() for s in shards)
    weights, off, specs = {}, 0, []
    for group in model['weightsManifest']:
        for spec in group['weights']:
            v, nb = dequantise(buf[off:], spec)
            off += nb
            weights[spec['name']] = v
            specs.append(dict(name=spec['name'], shape=spec['shape'], quantization=spec.get('quantization')))
    if off != len(buf):
        raise SystemExit('%s: read %d of %d weight bytes' % (name, off, len(buf)))
    os.makedirs(OUT, exist_ok=True)
    np.savez(os.path.join(OUT, name + '.npz'), **weights)
    json.dump(dict(package=PACKAGE, integrity=INTEGRITY, model=name, modelTopology=model['modelTopology'], weights=specs),
              open(os.path.join(OUT, name + '.json'), 'w'))
    n = sum(v.size for v in weights.values())
    print('%s: %d tensors, %d parameters, %d bytes quantised -> out/%s.npz (float32)' % (name, len(weights), n, len(buf), name))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    models = ['mobilenet_v2']
    if '--models' in sys.argv:
        models = sys.argv[sys.argv.index('--models') + 1].split(',')
        args = [a for a in args if a != sys.argv[sys.argv.index('--models') + 1]]
    tmp = tempfile.mkdtemp(prefix='nsfwjs-')
    if args:
        tgz = args[0]
    else:
        subprocess.run(['npm', 'pack', PACKAGE], cwd=tmp, check=True)
        tgz = os.path.join(tmp, 'nsfwjs-4.4.0.tgz')
    print('tarball', tgz, check_integrity(tgz))
    with tarfile.open(tgz) as t:
        t.extractall(tmp, members=[m for m in t.getmembers() if m.name.startswith('package/dist/models/')])
    for name in models:
        convert(tmp, name)


if __name__ == '__main__':
    main()
