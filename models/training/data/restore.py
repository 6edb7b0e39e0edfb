# Rebuilds Data v1 (the images of sources/*.tsv) under models/training/.data/images/ from fetched mirrors, reading
# blobs with `git cat-file` and checking every git blob hash. Never touches the network; reports what is missing.
#
#   /usr/bin/python3 restore.py /work/.mirror            # -> ../.data/images/<class>/<source>/<path with / as __>
#   /usr/bin/python3 restore.py /work/.mirror --check    # verify only, write nothing
#   /usr/bin/python3 restore.py /work/.mirror --only 'REGEX'   # the sources whose names match REGEX only
# A source with crop_bottom (sources.py; Data 2.7's Grok gallery, whose logo sits in its bottom rows) is written as a
# lossless PNG of its decoded pixels less those rows, named as the blob's file plus '.png'; every other file is
# written as its blob's bytes.
import argparse
import collections
import csv
import glob
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gitblobs  # noqa: E402
import sources  # noqa: E402

CROP_BOTTOM = {s['name']: s['crop_bottom'] for s in sources.SOURCES if s.get('crop_bottom')}

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.abspath(os.path.join(HERE, '..', '.data', 'images'))


def local_name(row, source=None):
    """Unique, flat file name: the path with / as __, prefixed by the blob when a path has several versions (plus
    '.png' for a source restored cropped)."""
    return row['blob'][:10] + '__' + row['path'].replace('/', '__') + ('.png' if source in CROP_BOTTOM else '')


def cropped_png(data, rows):
    """The file's decoded pixels without its bottom `rows` rows, as a lossless PNG (no metadata)."""
    import io
    from PIL import Image
    im = Image.open(io.BytesIO(data))
    im = im.convert('RGB').crop((0, 0, im.width, im.height - rows))
    b = io.BytesIO()
    im.save(b, 'PNG')
    return b.getvalue()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('mirror_root', help='folder holding owner+name/repo mirrors (e.g. /work/.mirror)')
    ap.add_argument('--out', default=DEFAULT_OUT)
    ap.add_argument('--check', action='store_true', help='verify hashes only, write nothing')
    ap.add_argument('--only', default='', help='regex on source names: restore those sources only')
    args = ap.parse_args()
    t0 = time.time()
    report = collections.OrderedDict()
    missing_all = []
    for tsv in sorted(glob.glob(os.path.join(HERE, 'sources', '*.tsv'))):
        name = os.path.basename(tsv)[:-4]
        if args.only and not re.search(args.only, name):
            continue
        rows = list(csv.DictReader(open(tsv, newline=''), delimiter='\t'))
        if not rows:
            continue
        gd = gitblobs.git_dir(args.mirror_root, rows[0]['repo'])
        st = collections.Counter(listed=len(rows))
        if gd is None:
            st['missing'] = len(rows)
            missing_all += [(name, r['path'], 'no mirror of ' + r['repo']) for r in rows]
            report[name] = dict(st)
            print('%-58s no mirror of %s' % (name, rows[0]['repo']))
            continue
        by_blob = {r['blob']: r for r in rows}
        for sha, data in gitblobs.read_blobs(gd, list(by_blob)):
            r = by_blob[sha]
            if data is None:
                st['missing'] += 1
                missing_all.append((name, r['path'], 'blob absent from mirror'))
                continue
            if gitblobs.blob_sha1(data) != sha or len(data) != int(r['bytes']):
                st['bad_hash'] += 1
                missing_all.append((name, r['path'], 'hash or size mismatch'))
                continue
            st['ok'] += 1
            st['bytes'] += len(data)
            if not args.check:
                d = os.path.join(args.out, r['class'], name)
                os.makedirs(d, exist_ok=True)
                p = os.path.join(d, local_name(r, name))
                if name in CROP_BOTTOM:
                    data = cropped_png(data, CROP_BOTTOM[name])
                if not (os.path.exists(p) and os.path.getsize(p) == len(data)):
                    with open(p + '.part', 'wb') as fh:
                        fh.write(data)
                    os.replace(p + '.part', p)
        if not args.check:  # files left by an older manifest would otherwise be read as part of the set
            d = os.path.join(args.out, rows[0]['class'], name)
            keep = {local_name(r, name) for r in rows}
            for f in os.listdir(d) if os.path.isdir(d) else []:
                if f not in keep:
                    os.remove(os.path.join(d, f))
                    st['stale_removed'] += 1
        report[name] = dict(st)
        print('%-58s %s' % (name, dict(st)), flush=True)
    tot = collections.Counter()
    for v in report.values():
        tot.update(v)
    summary = dict(total=dict(tot), sources=report, missing=missing_all[:200], n_missing=len(missing_all),
                   seconds=round(time.time() - t0, 1), out=None if args.check else args.out)
    if not args.check:
        os.makedirs(args.out, exist_ok=True)
        json.dump(summary, open(os.path.join(args.out, '..', 'restore-report.json'), 'w'), indent=1)
    print('total', dict(tot), 'missing', len(missing_all), '%.1f s' % (time.time() - t0))
    return 0 if not missing_all else 1


if __name__ == '__main__':
    sys.exit(main())
