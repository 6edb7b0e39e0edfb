# Builds Data 2.0's per-source manifests (Data v1 plus new sources; sources/<owner>__<repo>.tsv) from fetched
# mirrors: selects each source's
# images, reads their format facts, drops what is forbidden, absent, undecodable, tiny, duplicated across or within
# sources (blob and perceptual hash), or also in ../shared/datasets/modern/. No image is written: restore.py does that.
#
#   nice -n 19 /usr/bin/python3 build_manifests.py /work/.mirror
import collections
import csv
import json
import os
import pickle
import re
import sys
import time

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gitblobs  # noqa: E402
import imgmeta  # noqa: E402
import sources  # noqa: E402
from sources import FORBIDDEN_REPOS, SOURCES  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'sources')
CACHE = os.path.join(HERE, '..', '.data', 'cache')
MODERN = os.environ.get('VERACITY_MODERN', os.path.abspath(os.path.join(HERE, '..', '..', '..', '..', 'shared',
                                                                         'datasets', 'modern')))
MIN_SIDE = 160
COLUMNS = ['repo', 'commit', 'path', 'blob', 'bytes', 'licence', 'class', 'generator', 'format', 'width', 'height',
           'split', 'jpeg_quality', 'subsampling', 'exif', 'make', 'model', 'software', 'icc', 'xmp', 'text_chunks',
           'progressive', 'dhash']


def candidates(src, gd):
    inc = re.compile(src['include'], re.I)
    exc = re.compile(src['exclude'], re.I) if src.get('exclude') else None
    head = gitblobs.head(gd)
    rows, seen = [], set()
    for path, blob in gitblobs.tree(gd, head):
        if inc.search(path) and not (exc and exc.search(path)) and blob not in seen:
            seen.add(blob)
            rows.append((head, path, blob))
    if src.get('history'):
        for commit, path, blob in gitblobs.history(gd):
            if inc.search(path) and not (exc and exc.search(path)) and blob not in seen:
                seen.add(blob)
                rows.append((commit, path, blob))
    return head, rows


def label(src, gd, rows):
    """Generator per row: fixed text, EXIF device, or the source's labeller run against the row's commit."""
    lab = src.get('labeller')
    if not lab:
        return {}
    out = {}
    by_commit = collections.defaultdict(list)
    for commit, path, _ in rows:
        by_commit[commit].append(path)
    for commit, paths in by_commit.items():
        allpaths = [p for p, _ in gitblobs.tree(gd, commit)]
        read = lambda p, c=commit: gitblobs.git(gd, 'show', '%s:%s' % (c, p)).decode('utf-8', 'replace')  # noqa: E731
        m = lab(read, allpaths)
        for p in paths:
            out[(commit, p)] = m.get(p) or m.get('./' + p)
    return out


def popcount64(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


def thumb32(t, box=None):
    im = Image.fromarray(t)
    if box is not None:
        w, h = im.size
        im = im.crop((int(round(box[0] * w)), int(round(box[1] * h)), int(round(box[2] * w)), int(round(box[3] * h))))
    v = np.asarray(im.resize((32, 32), Image.BILINEAR), dtype=np.float32).flatten()
    v -= v.mean()
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


def main():
    mirror = sys.argv[1] if len(sys.argv) > 1 else '/work/.mirror'
    sources.MIRROR_ROOT = mirror
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(CACHE, exist_ok=True)
    cache_file = os.path.join(CACHE, 'meta.pkl')
    cache = pickle.load(open(cache_file, 'rb')) if os.path.exists(cache_file) else {}
    t0 = time.time()
    records, dropped, summary = [], [], collections.OrderedDict()
    for src in SOURCES:
        assert src['repo'] not in FORBIDDEN_REPOS, src['repo']
        gd = gitblobs.git_dir(mirror, src['repo'])
        if gd is None:
            print('no mirror for', src['repo'])
            summary[src['name']] = dict(error='no mirror')
            continue
        head, rows = candidates(src, gd)
        have = gitblobs.present(gd, [b for _, _, b in rows])
        labels = label(src, gd, rows)
        st = collections.Counter(candidates=len(rows))
        todo = [b for _, _, b in rows if b in have and b not in cache]
        for sha, data in gitblobs.read_blobs(gd, todo):
            try:
                assert data is not None and gitblobs.blob_sha1(data) == sha
                cache[sha] = imgmeta.describe(data)
            except Exception as e:  # noqa: BLE001 - undecodable files are dropped, with the reason
                cache[sha] = dict(error=repr(e)[:120])
        for commit, path, blob in rows:
            base = dict(source=src['name'], repo=src['repo'], commit=commit, path=path, blob=blob)
            if blob not in have:
                dropped.append(dict(base, reason='absent from the snapshot (large file)'))
                st['absent'] += 1
                continue
            info = cache[blob]
            if 'error' in info:
                dropped.append(dict(base, reason='undecodable: ' + info['error']))
                st['undecodable'] += 1
                continue
            if min(info['width'], info['height']) < MIN_SIDE:
                dropped.append(dict(base, reason='smaller than %d px' % MIN_SIDE))
                st['tiny'] += 1
                continue
            if src.get('require_camera') and not (info.get('make') or info.get('model')):
                dropped.append(dict(base, reason='no camera EXIF make/model (camera-file-only source)'))
                st['no_camera_exif'] += 1
                continue
            gen = src['generator']
            if gen == 'exif':
                gen = imgmeta.device_label(info)
                if gen.startswith('unknown') and src.get('device_from_path') and path.count('/') >= 2:
                    gen = ' '.join(path.split('/')[:2]) + ' (folder name; no EXIF make/model)'
            elif (commit, path) in labels and labels[(commit, path)]:
                gen = labels[(commit, path)]
            rec = dict(base, licence=src['licence'], cls=src['cls'], generator=gen, split=src['split'], **{
                k: v for k, v in info.items() if not k.startswith('_')})
            records.append(rec)
        summary[src['name']] = dict(st)
        print('%-60s %s  (%.0f s)' % (src['name'], dict(st), time.time() - t0), flush=True)
    pickle.dump(cache, open(cache_file, 'wb'))

    # 1. exact blob duplicates: first source (SOURCES order) keeps it; across classes both go
    by_blob = collections.defaultdict(list)
    for i, r in enumerate(records):
        by_blob[r['blob']].append(i)
    drop = {}
    for blob, idx in by_blob.items():
        if len({records[i]['cls'] for i in idx}) > 1:
            for i in idx:
                drop[i] = 'same blob in both classes'
        else:
            for i in idx[1:]:
                drop[i] = 'same blob as %s:%s' % (records[idx[0]]['source'], records[idx[0]]['path'])

    # 2. modern/: blob match, then a centre-crop match of its 384-px crops against every candidate's thumbnail
    modern = list(csv.DictReader(open(os.path.join(MODERN, 'MANIFEST.tsv')), delimiter='\t'))
    modern_blobs = {m['blob'] for m in modern}
    for i, r in enumerate(records):
        if r['blob'] in modern_blobs:
            drop[i] = 'also in modern/ (same blob)'
    keep_idx = [i for i in range(len(records)) if i not in drop]
    cand_aspect = np.array([records[i]['width'] / records[i]['height'] for i in keep_idx])
    n_modern_pix = 0
    # grouped by crop box, so each candidate's box thumbnail is made once per box and compared with every modern/
    # crop of that box in one product (the drop set is the same in any order: a candidate goes if any crop matches)
    groups = collections.OrderedDict()
    for m in modern:
        mm = re.search(r'crop (\d+)x(\d+)\+(\d+)\+(\d+)', m['transform'])
        if mm:
            groups.setdefault(tuple(map(int, mm.groups())), []).append(m)
    for (w, h, x, y), ms in groups.items():
        W, H = 2 * x + w, 2 * y + h  # centre crops: the original's size up to the iMCU rounding
        box = (x / W, y / H, (x + w) / W, (y + h) / H)
        mvs = []
        for m in ms:
            try:
                mt = np.asarray(Image.open(os.path.join(MODERN, m['local_file'])).convert('L'))
            except Exception:  # noqa: BLE001
                continue
            mvs.append((m, thumb32(mt)))
        if not mvs:
            continue
        close = [keep_idx[j] for j in np.where(np.abs(cand_aspect - W / H) / (W / H) < 0.04)[0]]
        close = [i for i in close if i not in drop]
        if not close:
            continue
        cv = np.stack([thumb32(cache[records[i]['blob']]['_thumb'], box) for i in close])
        for m, mv in mvs:
            for k in np.where(cv @ mv > 0.93)[0]:
                i = close[k]
                if i not in drop:
                    drop[i] = 'also in modern/ (perceptual match with %s)' % m['local_file']
                    n_modern_pix += 1

    # 3. perceptual near-duplicates (dHash <= 8, confirmed by 32x32 correlation >= 0.95 at the same aspect)
    keep_idx = [i for i in range(len(records)) if i not in drop]
    hashes = np.array([int(records[i]['dhash'], 16) for i in keep_idx], dtype=np.uint64)
    aspects = np.array([records[i]['width'] / records[i]['height'] for i in keep_idx])
    n_pdup = 0
    for a in range(len(keep_idx)):
        ia = keep_idx[a]
        if ia in drop:
            continue
        d = popcount64(hashes[a + 1:] ^ hashes[a]).astype(np.int64)
        for off in np.where(d <= 8)[0]:
            b = a + 1 + off
            ib = keep_idx[b]
            if ib in drop or abs(aspects[b] - aspects[a]) / aspects[a] > 0.05:
                continue
            va = thumb32(cache[records[ia]['blob']]['_thumb'])
            vb = thumb32(cache[records[ib]['blob']]['_thumb'])
            if float(va @ vb) < 0.95:
                continue
            n_pdup += 1
            if records[ia]['cls'] != records[ib]['cls']:
                drop[ib] = 'perceptual duplicate across classes of %s:%s' % (records[ia]['source'], records[ia]['path'])
                drop[ia] = 'perceptual duplicate across classes of %s:%s' % (records[ib]['source'], records[ib]['path'])
                break
            drop[ib] = 'perceptual duplicate of %s:%s' % (records[ia]['source'], records[ia]['path'])

    for i, reason in drop.items():
        r = records[i]
        dropped.append(dict(source=r['source'], repo=r['repo'], commit=r['commit'], path=r['path'], blob=r['blob'],
                            reason=reason))
    kept = [r for i, r in enumerate(records) if i not in drop]
    for f in os.listdir(OUT):
        if f.endswith('.tsv'):
            os.remove(os.path.join(OUT, f))
    by_src = collections.defaultdict(list)
    for r in kept:
        by_src[r['source']].append(r)
    for name, rows in by_src.items():
        rows.sort(key=lambda r: r['path'])
        with open(os.path.join(OUT, name + '.tsv'), 'w', newline='') as fh:
            w = csv.writer(fh, delimiter='\t', lineterminator='\n')
            w.writerow(COLUMNS)
            for r in rows:
                w.writerow(['' if r.get(c) is None else r.get(c, '') for c in
                            ['repo', 'commit', 'path', 'blob', 'bytes', 'licence', 'cls'] + COLUMNS[7:]])
    with open(os.path.join(HERE, 'dropped.tsv'), 'w', newline='') as fh:
        w = csv.writer(fh, delimiter='\t', lineterminator='\n')
        w.writerow(['source', 'repo', 'commit', 'path', 'blob', 'reason'])
        for d in sorted(dropped, key=lambda d: (d['source'], d['path'])):
            w.writerow([d['source'], d['repo'], d['commit'], d['path'], d['blob'], d['reason']])
    counts = collections.OrderedDict()
    for src in SOURCES:
        rows = by_src.get(src['name'], [])
        reasons = collections.Counter(d['reason'].split(' of ')[0].split(' as ')[0].split(':')[0]
                                      for d in dropped if d['source'] == src['name'])
        counts[src['name']] = dict(cls=src['cls'], split=src['split'], kept=len(rows),
                                   formats=dict(collections.Counter(r['format'] for r in rows)),
                                   dropped=dict(reasons), scan=summary.get(src['name']))
    tot = collections.Counter((r['cls'], r['split']) for r in kept)
    res = dict(total={'%s/%s' % k: v for k, v in sorted(tot.items())},
               total_by_class=dict(collections.Counter(r['cls'] for r in kept)),
               modern_perceptual_matches=n_modern_pix, perceptual_duplicates=n_pdup, sources=counts,
               seconds=round(time.time() - t0, 1))
    json.dump(res, open(os.path.join(HERE, 'counts.json'), 'w'), indent=1)
    print(json.dumps(res['total']), json.dumps(res['total_by_class']), 'modern px matches', n_modern_pix,
          'pdup', n_pdup, '%.0f s' % (time.time() - t0))


if __name__ == '__main__':
    main()
