# The shipped networks' scores on every evaluation set, kept in the repository so that a fresh machine can judge a
# new candidate without scoring the unchanged branches again (about 75 minutes of the artefact network, plus the two
# content models and the photo guard, on this 2-core machine). A candidate that replaces one branch only needs that
# branch's scores; the others, and the guard's features, come from the pack.
#
# What it holds: runs/v1-ft-data2/scores-<set>.json (the artefact network, model.onnx through onnx_to_ckpt.py and
# eval_v1.py), runs/sem7-all/scores-<set>.json and runs/inc-m10/scores-<set>.json (semantic.onnx and semantic2.onnx
# through semantic/onnx_scores.py) and .cache/guard/features-<set>.json (guard/measure.py), for the sets of
# reproduce.sh step 27, plus a list of every file's SHA-256. Scores only: no image, no crop, no feature map of one.
#
#   /usr/bin/python3 scorepack.py pack   [--out scorepack/1.5.1.tar.xz]   after reproduce.sh step 27's scoring
#   /usr/bin/python3 scorepack.py pack --semantic kd3-sem7 --out scorepack/1.6.0.tar.xz   1.6.0's (step 33)
#   /usr/bin/python3 scorepack.py unpack [--pack scorepack/1.5.1.tar.xz] [--force]   on a fresh clone, hash-checked
#   /usr/bin/python3 scorepack.py check  [--pack ...]                     the files in place against the pack's list
import argparse
import hashlib
import io
import json
import os
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, 'scorepack', '1.5.1.tar.xz')
SETS = ('val_raw val_tx val21_raw val21_tx valpt_raw valpt_tx modern_raw modern_jpeg90 val24_raw val24_q90 '
        'valtilt_raw valtilt_tx val26_raw val26_q90 val27_raw val27_q90').split()


def members(semantic='sem7-all'):  # 1.6.0's content branch is kd3-sem7 (PyTorch scores of the cached maps, train.py)
    return ([f'runs/{run}/scores-{s}.json' for run in ('v1-ft-data2', semantic, 'inc-m10') for s in SETS]
            + [f'.cache/guard/features-{s}.json' for s in SETS])


MEMBERS = members()
LIST = 'SHA256SUMS.json'


def sha(data):
    return hashlib.sha256(data).hexdigest()


def pack(out, semantic):
    MEMBERS = members(semantic)
    missing = [m for m in MEMBERS if not os.path.isfile(os.path.join(HERE, m))]
    if missing:
        raise SystemExit('not packed: %d files missing, e.g. %s' % (len(missing), ', '.join(missing[:3])))
    sums = {}
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = out + '.part'
    with tarfile.open(tmp, 'w:xz', preset=9) as tar:
        for m in MEMBERS:
            data = open(os.path.join(HERE, m), 'rb').read()
            sums[m] = sha(data)
            info = tarfile.TarInfo(m)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))
        listing = json.dumps(sums, indent=1, sort_keys=True).encode()
        info = tarfile.TarInfo(LIST)
        info.size, info.mtime, info.mode = len(listing), 0, 0o644
        tar.addfile(info, io.BytesIO(listing))
    os.replace(tmp, out)
    print('packed %d files (%.1f MB of JSON) into %s (%.1f MB)' % (
        len(MEMBERS), sum(os.path.getsize(os.path.join(HERE, m)) for m in MEMBERS) / 1e6, out, os.path.getsize(out) / 1e6))


def read_pack(path):
    with tarfile.open(path, 'r:xz') as tar:
        files = {}
        for info in tar.getmembers():
            if not info.isfile():
                raise SystemExit('refused: %s is not a plain file' % info.name)
            name = os.path.normpath(info.name)
            if name.startswith(('/', '..')) or name != info.name:
                raise SystemExit('refused: %s points outside models/training' % info.name)
            files[name] = tar.extractfile(info).read()
    sums = json.loads(files.pop(LIST))
    if sorted(sums) != sorted(files):
        raise SystemExit('refused: the pack\'s list and its files differ')
    for name, data in files.items():
        if sha(data) != sums[name]:
            raise SystemExit('refused: %s does not match its SHA-256' % name)
    return files


def unpack(path, force):
    files = read_pack(path)
    clash = [n for n, d in files.items() if os.path.exists(os.path.join(HERE, n))
             and open(os.path.join(HERE, n), 'rb').read() != d]
    if clash and not force:
        raise SystemExit('not unpacked: %d files in place differ from the pack (e.g. %s); --force replaces them'
                         % (len(clash), clash[0]))
    for name, data in files.items():
        dest = os.path.join(HERE, name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest + '.part', 'wb') as f:
            f.write(data)
        os.replace(dest + '.part', dest)
    print('unpacked %d files from %s (%d replaced)' % (len(files), path, len(clash)))


def check(path):
    files = read_pack(path)
    bad = []
    for name, data in files.items():
        p = os.path.join(HERE, name)
        if not os.path.isfile(p):
            bad.append((name, 'missing'))
        elif open(p, 'rb').read() != data:
            bad.append((name, 'differs'))
    for name, why in bad:
        print('%-50s %s' % (name, why))
    print('%d of %d files as packed' % (len(files) - len(bad), len(files)))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('cmd', choices=['pack', 'unpack', 'check'])
    ap.add_argument('--out', default=DEFAULT)
    ap.add_argument('--pack', default=DEFAULT)
    ap.add_argument('--force', action='store_true')
    ap.add_argument('--semantic', default='sem7-all', help='the run of semantic.onnx (1.6.0: kd3-sem7)')
    a = ap.parse_args()
    if a.cmd == 'pack':
        pack(a.out, a.semantic)
    elif a.cmd == 'unpack':
        unpack(a.pack, a.force)
    else:
        sys.exit(check(a.pack))


if __name__ == '__main__':
    main()
