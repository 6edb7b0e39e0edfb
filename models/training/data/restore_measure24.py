# Data 2.4's measuring set (tenth session; candidates-data24b.md): 48 first-generation downloads of today's generators
# (16 ChatGPT, 16 Midjourney v7, 16 Google Whisk; photoreal university scenes with people; CC0), listed with their
# blob hashes in measure24.tsv. For measuring only: never in a training list, a fit or a threshold (it is not in
# sources.py, so no list of crops_v1 / eval_v1 takes it but eval_v1's val24_* sets). Restores them from a mirror of
# the repository (fetch github:Kauandugi/Bias-ai-university-visuals) into .data/measure24/ai/<group>/, hash-checked:
#   /usr/bin/python3 restore_measure24.py [MIRROR_ROOT]
import csv
import hashlib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), '.data', 'measure24')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '/work/.mirror'
    n = 0
    for r in csv.DictReader(open(os.path.join(HERE, 'measure24.tsv')), delimiter='\t'):
        git = os.path.join(root, r['repo'].replace('/', '+'), 'repo')
        data = subprocess.run(['git', '-C', git, 'cat-file', 'blob', r['blob']], check=True, capture_output=True).stdout
        h = hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()
        if h != r['blob']:
            raise SystemExit('%s: blob hash %s, expected %s' % (r['path'], h, r['blob']))
        d = os.path.join(OUT, r['class'], r['group'])
        os.makedirs(d, exist_ok=True)
        name = '%s__%s' % (r['blob'][:10], os.path.basename(r['path']).replace(' ', '_'))
        with open(os.path.join(d, name), 'wb') as f:
            f.write(data)
        n += 1
    print('restored', n, 'files into', OUT)


if __name__ == '__main__':
    main()
