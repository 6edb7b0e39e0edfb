# Data 2.4's measuring set (tenth session; candidates-data24b.md): 48 first-generation downloads of today's generators
# (16 ChatGPT, 16 Midjourney v7, 16 Google Whisk; photoreal university scenes with people; CC0), listed with their
# blob hashes in measure24.tsv. For measuring only: never in a training list, a fit or a threshold (it is not in
# sources.py, so no list of crops_v1 / eval_v1 takes it but eval_v1's val24_* sets). Restores them from a mirror of
# the repository (fetch github:Kauandugi/Bias-ai-university-visuals) into .data/measure24/ai/<group>/, hash-checked:
#   /usr/bin/python3 restore_measure24.py [MIRROR_ROOT]
# Data 2.6's measuring set (seventeenth session; measure26.tsv from build_measure26.py: 339 API outputs of gpt-image-2, gpt-image-1-mini,
# Nano Banana / Pro / 2 and Imagen 4, committed by the bots that made them) the same way into .data/measure26/, with
# every file's metadata stripped and its pixels unchanged (decoded and written again as PNG: no C2PA, text chunks or
# XMP, so only the pixels can say AI):
#   /usr/bin/python3 restore_measure24.py [MIRROR_ROOT] --set 26
# Data 2.10's unusual genuine captures (twenty-first session; measure-odd.tsv from build_measure_odd.py), bytes as
# committed (their camera metadata kept), into .data/measureodd/real/<category>/:
#   /usr/bin/python3 restore_measure24.py [MIRROR_ROOT] --set odd
# Data 2.11's (twenty-second session; measure-odd211.tsv) likewise into .data/measureodd211/real/<category>/:
#   /usr/bin/python3 restore_measure24.py [MIRROR_ROOT] --set odd211
import argparse
import csv
import hashlib
import io
import os
import subprocess

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('mirrors', nargs='?', default='/work/.mirror')
    ap.add_argument('--set', default='24', choices=['24', '26', 'odd', 'odd211'])
    args = ap.parse_args()
    which, root = args.set, args.mirrors
    out = os.path.join(os.path.dirname(HERE), '.data', 'measure' + which)
    n = 0
    tsv = 'measure-%s.tsv' % which if which.startswith('odd') else 'measure%s.tsv' % which
    for r in csv.DictReader(open(os.path.join(HERE, tsv)), delimiter='\t'):
        git = os.path.join(root, r['repo'].replace('/', '+'), 'repo')
        data = subprocess.run(['git', '-C', git, 'cat-file', 'blob', r['blob']], check=True, capture_output=True).stdout
        h = hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()
        if h != r['blob']:
            raise SystemExit('%s: blob hash %s, expected %s' % (r['path'], h, r['blob']))
        d = os.path.join(out, r['class'], r['group'])
        os.makedirs(d, exist_ok=True)
        name = '%s__%s' % (r['blob'][:10], os.path.basename(r['path']).replace(' ', '_'))
        if which == '26':
            im = Image.open(io.BytesIO(data))
            im.load()
            b = io.BytesIO()
            im.save(b, 'PNG')  # no pnginfo: C2PA (caBX), text chunks, eXIf and iTXt XMP are left behind
            data = b.getvalue()
        with open(os.path.join(d, name), 'wb') as f:
            f.write(data)
        n += 1
    print('restored', n, 'files into', out)


if __name__ == '__main__':
    main()
