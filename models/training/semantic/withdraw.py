# Removes the rows of withdrawn sources (data/sources.py FORBIDDEN_REPOS entries that were once gathered) from every
# recorded score and feature file, so that no fusion fit, threshold or comparison made afterwards reads them:
# runs/*/scores-*.json (every branch and fusion), .cache/guard/features-*.json (the photo guard's features), and the
# content models' evaluation caches (.cache/*/<set>.npz): a cache made before this step indexes the shipped run's rows
# by position ('row'), so each gets the path of every entry first (from scorepack/1.6.0.tar.xz, the order it was made
# in), then loses the withdrawn entries; sem_common.cache_rows matches entries to rows by that path. Idempotent.
# The twenty-seventh session withdrew muset-ai/awesome-nano-banana-pro (a fork of a forbidden gallery: sources.py).
#   /usr/bin/python3 withdraw.py            (after scorepack.py unpack, before any fit)
import glob
import json
import os
import sys
import tarfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'data'))
from sources import FORBIDDEN_REPOS  # noqa: E402

TRAINING = os.path.join(HERE, '..')
WITHDRAWN = ['muset-ai/awesome-nano-banana-pro']


def main():
    assert all(r in FORBIDDEN_REPOS for r in WITHDRAWN)
    names = {r.replace('/', '__') for r in WITHDRAWN}
    # a row names its source ('v1/<name>'); derived sets (valtilt's turned copies) keep it while their path changes
    gone = lambda row: row.get('source', '').split('/')[-1] in names or any('/%s/' % n in row['path'] for n in names)  # noqa: E731
    caches(names)
    files = sorted(glob.glob(os.path.join(TRAINING, 'runs', '*', 'scores-*.json'))
                   + glob.glob(os.path.join(TRAINING, '.cache', 'guard', 'features-*.json')))
    total = 0
    for p in files:
        d = json.load(open(p))
        rows = d['rows'] if isinstance(d, dict) else d
        kept = [r for r in rows if not gone(r)]
        if len(kept) == len(rows):
            continue
        if isinstance(d, dict):
            d['rows'] = kept
        else:
            d = kept
        json.dump(d, open(p, 'w'))
        total += len(rows) - len(kept)
        print('%-60s %4d -> %4d' % (os.path.relpath(p, TRAINING), len(rows), len(kept)))
    print('rows removed:', total)


def caches(names):
    """The evaluation caches (.cache/<model>/<set>.npz, sem_common.CACHE's layout): each entry's path added where it
    is missing, from the shipped run's rows in scorepack 1.6.0 (the order the cache was made in), then the entries of
    withdrawn sources dropped."""
    old = {}
    pack = os.path.join(TRAINING, 'scorepack', '1.6.0.tar.xz')
    for p in sorted(glob.glob(os.path.join(TRAINING, '.cache', '*', '*.npz'))):
        name = os.path.basename(p)[:-4]
        if name.startswith('train_') or name.endswith('.tmp'):
            continue
        d = dict(np.load(p))
        if 'row' not in d:
            continue
        n = len(d['row'])
        if 'path' not in d:
            if name not in old:
                with tarfile.open(pack) as t:
                    m = 'runs/v1-ft-data2/scores-%s.json' % name
                    old[name] = json.load(t.extractfile(m))['rows'] if m in t.getnames() else None
            if old[name] is None:
                print('%-60s no recorded order: left as is' % os.path.relpath(p, TRAINING))
                continue
            d['path'] = np.array([old[name][j]['path'] for j in d['row']])
            d['source'] = np.array([old[name][j]['source'] for j in d['row']])
        keep = np.array([str(s).split('/')[-1] not in names and not any('/%s/' % x in str(q) for x in names)
                         for s, q in zip(d.get('source', [''] * n), d['path'])])
        d = {k: (v[keep] if getattr(v, 'shape', ()) and len(v) == n else v) for k, v in d.items()}
        np.savez(p[:-4] + '.tmp.npz', **d)
        os.replace(p[:-4] + '.tmp.npz', p)
        print('%-60s %4d -> %4d entries' % (os.path.relpath(p, TRAINING), n, int(keep.sum())))


if __name__ == '__main__':
    main()
