# Data 2.10's measuring set (twenty-first session): unusual but genuine captures a reviewer meets (thermal camera
# pictures, photos of screens, scans, photos of documents, night, underwater, aerial, security-camera frames, black
# and white), real class only. For measuring only: never in a training list, a fit or a threshold (not in sources.py).
# The twenty-first session's E4 found the first false accusation of this kind (a FLIR thermal picture); one file of
# 211 cannot tell a worse model from chance, a set of such captures can. Reads the scouted list (JSON: repo, commit,
# path, blob, bytes, category, licence, note), checks every blob in the mirrors (hash and decodable image), and writes
# measure-odd.tsv, which restore_measure24.py --set odd restores into .data/measureodd/real/<category>/:
#   /usr/bin/python3 build_measure_odd.py LIST.json [MIRROR_ROOT]
# Data 2.11 (twenty-second session; data/candidates-data211.md), a second such set from other repositories, held out
# from the guards' tuning, is written to measure-odd211.tsv (restore_measure24.py --set odd211):
#   /usr/bin/python3 build_measure_odd.py LIST.json [MIRROR_ROOT] --out measure-odd211.tsv
import csv
import hashlib
import io
import json
import os
import subprocess
import sys

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import imgmeta  # noqa: E402
import sources  # noqa: E402

FIELDS = ['repo', 'commit', 'path', 'blob', 'bytes', 'licence', 'class', 'generator', 'group']


def main():
    argv = sys.argv[1:]
    out = 'measure-odd.tsv'
    if '--out' in argv:
        k = argv.index('--out')
        out = argv[k + 1]
        del argv[k:k + 2]
    items = json.load(open(argv[0]))
    root = argv[1] if len(argv) > 1 else '/work/.mirror'
    # Repositories and blobs of the other measuring sets are not measured twice.
    other = set()
    for t in ('measure-odd.tsv', 'measure-odd211.tsv', 'measure24.tsv', 'measure26.tsv'):
        if t != out and os.path.exists(os.path.join(HERE, t)):
            other |= {r['blob'] for r in csv.DictReader(open(os.path.join(HERE, t)), delimiter='\t')}
    forbidden = {r.lower() for r in sources.FORBIDDEN_REPOS}
    used = {s['repo'].lower() for s in sources.SOURCES}
    rows, seen, dropped = [], set(), []
    for it in items:
        repo = it['repo']
        if repo.lower() in forbidden:
            raise SystemExit('forbidden repository: %s' % repo)
        if repo.lower() in used:
            dropped.append((it['path'], 'a training or validation source'))
            continue
        if it['blob'] in other:
            dropped.append((it['path'], 'in another measuring set'))
            continue
        if it['blob'] in seen:
            dropped.append((it['path'], 'duplicate blob'))
            continue
        git = os.path.join(root, repo.replace('/', '+'), 'repo')
        data = subprocess.run(['git', '-C', git, 'cat-file', 'blob', it['blob']], check=True, capture_output=True).stdout
        if hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest() != it['blob']:
            raise SystemExit('%s: blob hash mismatch' % it['path'])
        try:
            if imgmeta.is_heif(data):
                imgmeta.describe_heif(data)
            else:
                im = Image.open(io.BytesIO(data))
                im.load()
        except Exception as e:  # noqa: BLE001 - not an image this pipeline reads: left out, and said
            dropped.append((it['path'], 'undecodable: %s' % e))
            continue
        seen.add(it['blob'])
        rows.append(dict(repo=repo, commit=it['commit'], path=it['path'], blob=it['blob'], bytes=len(data),
                         licence=it['licence'], **{'class': 'real'}, generator='camera (%s)' % (it.get('note') or 'unknown'),
                         group=it['category']))
    rows.sort(key=lambda r: (r['group'], r['repo'], r['path']))
    with open(os.path.join(HERE, out), 'w', newline='') as f:
        w = csv.DictWriter(f, FIELDS, delimiter='\t', lineterminator='\n')
        w.writeheader()
        w.writerows(rows)
    by = {}
    for r in rows:
        by[r['group']] = by.get(r['group'], 0) + 1
    print('kept', len(rows), by)
    for p, why in dropped:
        print('dropped', p, why)


if __name__ == '__main__':
    main()
