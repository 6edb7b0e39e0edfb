# Which evaluation files show people: a face finder (OpenCV's Haar cascade, Debian's python3-opencv and opencv-data,
# a developer tool like the rest of training; the product never runs it) over the original file of every row of a
# run's score files, so false accusations can be counted on portraits alone.
#   /usr/bin/python3 portraits.py tag RUN [SET ...]     tags the files of RUN's score files (cached in
#                                                        .cache/portraits.json: path -> faces found, largest face side
#                                                        / the image's shorter side)
#   /usr/bin/python3 portraits.py tag-dir DIR           the same for every image under DIR
# A "portrait" is a file whose largest face is at least PORTRAIT (0.15) of the shorter side: a headshot, a selfie, an
# ID photo, a person in the foreground; "people" is any face of at least 0.05. Haar misses profiles and small or
# turned faces and sometimes finds a face in texture, so the tags are a measuring aid, checked by eye on a sample
# (README of semantic/, "Portraits").
import json
import os
import sys

import numpy as np
from PIL import Image, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402

CACHE = os.path.join(common.CACHE, 'portraits.json')
PORTRAIT = 0.15
PEOPLE = 0.05
MAX_SIDE = 800
Image.MAX_IMAGE_PIXELS = 60_000_000
_cascade = None


def _detector():
    global _cascade
    if _cascade is None:
        import cv2
        cv2.setNumThreads(1)
        _cascade = cv2.CascadeClassifier('/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml')
    return _cascade


def face_boxes(im):
    """Faces in a PIL image as displayed (EXIF orientation applied by the caller): [(x, y, w, h)] in its pixels."""
    g = im.convert('L')
    s = MAX_SIDE / max(g.size)
    if s < 1:
        g = g.resize((max(1, round(g.width * s)), max(1, round(g.height * s))), Image.BILINEAR)
    else:
        s = 1.0
    a = np.asarray(g)
    found = _detector().detectMultiScale(a, scaleFactor=1.1, minNeighbors=5,
                                         minSize=(max(12, int(min(a.shape) * 0.04)),) * 2)
    return [tuple(int(round(v / s)) for v in b) for b in found]


def faces(path):
    """(number of faces, largest face side / shorter image side) of the image at path, as it is displayed."""
    im = ImageOps.exif_transpose(Image.open(path))
    found = face_boxes(im)
    if not found:
        return 0, 0.0
    return len(found), float(max(min(w, h) for _, _, w, h in found) / min(im.size))


def face_crop(im, boxes, size=200):
    """A UTKFace-like crop of the largest face: a square 1.8 times the face box, its centre a tenth of the box above
    the box's, clamped into the image, resized to size x size."""
    x, y, w, h = max(boxes, key=lambda b: b[2] * b[3])
    side = min(int(1.8 * max(w, h)), min(im.size))
    cx, cy = x + w / 2, y + h / 2 - 0.1 * h
    left = int(min(max(0, cx - side / 2), im.width - side))
    top = int(min(max(0, cy - side / 2), im.height - side))
    return im.crop((left, top, left + side, top + side)).resize((size, size), Image.BICUBIC)


def utk_jpeg(im, boxes, key):
    """The largest face as UTKFace ships its faces (face_crop: 200x200) in JPEG bytes, at a quality from 75 to 95 drawn
    from key, for AI and real files alike."""
    import io
    import random
    buf = io.BytesIO()
    face_crop(im.convert('RGB'), boxes).save(buf, 'JPEG', quality=random.Random(key).randint(75, 95))
    return buf.getvalue()


def load():
    return json.load(open(CACHE)) if os.path.exists(CACHE) else {}


def tag(paths):
    cache = load()
    todo = [p for p in dict.fromkeys(paths) if p not in cache]
    for i, p in enumerate(todo):
        try:
            n, f = faces(os.path.join(HERE, p) if not os.path.isabs(p) else p)
            cache[p] = [n, round(f, 4)]
        except Exception as e:  # noqa: BLE001 - an undecodable file (HEIC here) has no tag
            cache[p] = [None, str(e)[:80]]
        if i % 200 == 199:
            json.dump(cache, open(CACHE, 'w'))
            print('%d / %d' % (i + 1, len(todo)), flush=True)
    json.dump(cache, open(CACHE, 'w'))
    return cache


def kind(entry):
    """'portrait', 'people', 'none' or None (not decodable) for a cache entry."""
    if entry is None or entry[0] is None:
        return None
    return 'portrait' if entry[1] >= PORTRAIT else 'people' if entry[1] >= PEOPLE else 'none'


def main():
    cmd = sys.argv[1]
    if cmd == 'tag':
        run, sets = sys.argv[2], sys.argv[3:]
        paths = []
        for n in sets:
            paths += [r['path'] for r in json.load(open(os.path.join(common.RUNS, run, 'scores-%s.json' % n)))['rows']]
    else:
        root = sys.argv[2]
        paths = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
                 if f.lower().endswith(('.jpg', '.jpeg', '.png', '.webp'))]
    cache = tag(paths)
    ks = [kind(cache[p]) for p in dict.fromkeys(paths)]
    print('%d files: portrait %d, people %d, none %d, undecodable %d' % (
        len(ks), ks.count('portrait'), ks.count('people'), ks.count('none'), ks.count(None)))


if __name__ == '__main__':
    main()
