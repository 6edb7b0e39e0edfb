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


NAMES = {r.replace('/', '__') for r in WITHDRAWN}


def withdrawn(source, path):
    """Whether a row or cache entry is a withdrawn source's: a row names its source ('v1/<name>'); derived sets
    (valtilt's turned copies) keep it while their path changes."""
    return str(source).split('/')[-1] in NAMES or any('/%s/' % n in str(path) for n in NAMES)


def main():
    assert all(r in FORBIDDEN_REPOS for r in WITHDRAWN)
    caches()
    files = sorted(glob.glob(os.path.join(TRAINING, 'runs', '*', 'scores-*.json'))
                   + glob.glob(os.path.join(TRAINING, '.cache', 'guard', 'features-*.json')))
    total = 0
    for p in files:
        d = json.load(open(p))
        rows = d['rows'] if isinstance(d, dict) else d
        kept = [r for r in rows if not withdrawn(r.get('source', ''), r['path'])]
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


def caches():
    """The evaluation caches (.cache/<model>/<set>.npz, sem_common.CACHE's layout): each entry's path added where it
    is missing, from the shipped run's rows in scorepack 1.6.0 (the order the cache was made in), then the entries of
    withdrawn sources dropped. A cache with paths and nothing to drop is left as it is."""
    old = None
    for p in sorted(glob.glob(os.path.join(TRAINING, '.cache', '*', '*.npz'))):
        name = os.path.basename(p)[:-4]
        if name.startswith('train_') or name.endswith('.tmp'):
            continue
        d = dict(np.load(p))
        if 'row' not in d:
            continue
        n = len(d['row'])
        if 'path' not in d:
            if old is None:
                with tarfile.open(os.path.join(TRAINING, 'scorepack', '1.6.0.tar.xz')) as t:
                    old = {m.name[len('runs/v1-ft-data2/scores-'):-len('.json')]: json.load(t.extractfile(m))['rows']
                           for m in t.getmembers() if m.name.startswith('runs/v1-ft-data2/scores-')}
            if name not in old:
                print('%-60s no recorded order: left as is' % os.path.relpath(p, TRAINING))
                continue
            d['path'] = np.array([old[name][j]['path'] for j in d['row']])
            d['source'] = np.array([old[name][j]['source'] for j in d['row']])
        elif not any(withdrawn(s, q) for s, q in zip(d.get('source', [''] * n), d['path'])):
            continue
        keep = np.array([not withdrawn(s, q) for s, q in zip(d.get('source', [''] * n), d['path'])])
        d = {k: (v[keep] if getattr(v, 'shape', ()) and len(v) == n else v) for k, v in d.items()}
        np.savez(p[:-4] + '.tmp.npz', **d)
        os.replace(p[:-4] + '.tmp.npz', p)
        print('%-60s %4d -> %4d entries' % (os.path.relpath(p, TRAINING), n, int(keep.sum())))


if __name__ == '__main__':
    main()
