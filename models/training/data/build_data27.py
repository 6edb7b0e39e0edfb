# Data 2.7's manifests (sources.DATA27; eighteenth session), built without rebuilding every other source's:
# build_manifests.py rewrites all of sources/*.tsv from all mirrors, which needs every mirror and a full pass. This
# selects the Data 2.7 sources' files as build_manifests.py does (build_manifests.candidates, imgmeta.describe, the
# same columns), drops a file whose blob is in any other manifest or in modern/'s MANIFEST.tsv, and perceptual
# near-duplicates (dHash <= 8 confirmed by 32x32 correlation >= 0.95) within Data 2.7 and against modern/'s files,
# then writes sources/<name>.tsv for these sources only. restore.py then writes the files (with crop_bottom).
#   nice -n 19 /usr/bin/python3 build_data27.py [MIRROR_ROOT]
import collections
import csv
import glob
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import build_manifests as B  # noqa: E402
import gitblobs  # noqa: E402
import imgmeta  # noqa: E402
from sources import DATA27, FORBIDDEN_REPOS, SOURCES  # noqa: E402


def main():
    mirror = sys.argv[1] if len(sys.argv) > 1 else '/work/.mirror'
    ours = [s for s in SOURCES if s['name'] in DATA27]
    known = set()
    for tsv in glob.glob(os.path.join(B.OUT, '*.tsv')):
        if os.path.basename(tsv)[:-4] not in DATA27:
            known |= {r['blob'] for r in csv.DictReader(open(tsv, newline=''), delimiter='\t')}
    modern = list(csv.DictReader(open(os.path.join(B.MODERN, 'MANIFEST.tsv')), delimiter='\t'))
    known |= {m['blob'] for m in modern}
    from PIL import Image
    modern_thumbs = []
    for m in modern:
        try:
            modern_thumbs.append(B.thumb32(np.asarray(Image.open(os.path.join(B.MODERN, m['local_file'])).convert('L'))))
        except Exception:  # noqa: BLE001
            pass
    modern_thumbs = np.stack(modern_thumbs)
    records, dropped = [], []
    for src in ours:
        assert src['repo'] not in FORBIDDEN_REPOS, src['repo']
        gd = gitblobs.git_dir(mirror, src['repo'])
        assert gd, 'no mirror of %s (fetch github:%s)' % (src['repo'], src['repo'])
        _, rows = B.candidates(src, gd)
        infos = {}
        for sha, data in gitblobs.read_blobs(gd, [b for _, _, b in rows]):
            assert data is not None and gitblobs.blob_sha1(data) == sha, (src['name'], sha)
            infos[sha] = imgmeta.describe(data)
        for commit, path, blob in rows:
            base = dict(source=src['name'], repo=src['repo'], commit=commit, path=path, blob=blob)
            info = infos[blob]
            if blob in known:
                dropped.append(dict(base, reason='blob in another manifest or in modern/'))
                continue
            if min(info['width'], info['height']) < B.MIN_SIDE:
                dropped.append(dict(base, reason='smaller than %d px' % B.MIN_SIDE))
                continue
            v = B.thumb32(info['_thumb'])
            if float((modern_thumbs @ v).max()) > 0.95:
                dropped.append(dict(base, reason='perceptual match with a modern/ file'))
                continue
            records.append(dict(base, licence=src['licence'], cls=src['cls'], generator=src['generator'],
                                split=src['split'], _v=v, **{k: x for k, x in info.items() if not k.startswith('_')}))
    keep = []
    for r in records:  # near-duplicates within Data 2.7: the first (SOURCES order, then path) stays
        h = int(r['dhash'], 16)
        dup = next((k for k in keep if bin(h ^ int(k['dhash'], 16)).count('1') <= 8 and float(r['_v'] @ k['_v']) >= 0.95), None)
        if dup:
            dropped.append(dict(source=r['source'], repo=r['repo'], commit=r['commit'], path=r['path'], blob=r['blob'],
                                reason='perceptual duplicate of %s:%s' % (dup['source'], dup['path'])))
        else:
            keep.append(r)
    by_src = collections.defaultdict(list)
    for r in keep:
        by_src[r['source']].append(r)
    for src in ours:
        rows = sorted(by_src[src['name']], key=lambda r: r['path'])
        with open(os.path.join(B.OUT, src['name'] + '.tsv'), 'w', newline='') as fh:
            w = csv.writer(fh, delimiter='\t', lineterminator='\n')
            w.writerow(B.COLUMNS)
            for r in rows:
                w.writerow(['' if r.get(c) is None else r.get(c, '') for c in
                            ['repo', 'commit', 'path', 'blob', 'bytes', 'licence', 'cls'] + B.COLUMNS[7:]])
        print('%-50s kept %d  dropped %s' % (src['name'], len(rows), dict(collections.Counter(
            d['reason'].split(' of ')[0] for d in dropped if d['source'] == src['name']))))
    for d in dropped:
        print('dropped', d['source'], d['path'], d['reason'])
    # counts.json (SOURCES.md's counts): Data 2.7's entries and the totals with them, as build_manifests.py writes them
    counts_p = os.path.join(HERE, 'counts.json')
    counts = json.load(open(counts_p))
    for src in ours:
        old = counts['sources'].pop(src['name'], None)
        if old:
            counts['total']['%s/%s' % (old['cls'], old['split'])] -= old['kept']
            counts['total_by_class'][old['cls']] -= old['kept']
        rows = by_src[src['name']]
        counts['sources'][src['name']] = dict(
            cls=src['cls'], split=src['split'], kept=len(rows), formats=dict(collections.Counter(r['format'] for r in rows)),
            dropped=dict(collections.Counter(d['reason'].split(' of ')[0] for d in dropped if d['source'] == src['name'])),
            scan=dict(candidates=len(rows) + sum(d['source'] == src['name'] for d in dropped)))
        k = '%s/%s' % (src['cls'], src['split'])
        counts['total'][k] = counts['total'].get(k, 0) + len(rows)
        counts['total_by_class'][src['cls']] = counts['total_by_class'].get(src['cls'], 0) + len(rows)
    json.dump(counts, open(counts_p, 'w'), indent=1)


if __name__ == '__main__':
    main()
