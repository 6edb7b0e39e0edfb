#!/usr/bin/python3
"""The informed capture forger of the thirty-second session's audit, for test/eval/capture-forgery.ts: the AI picture
at the donor's size, encoded with the donor's own quantization tables and chroma subsampling (PIL, libjpeg), every tag
copied from the donor with exiftool and the EXIF thumbnail made again from the new pixels. With --strip-jfif the JFIF
header is then removed from the file and from the thumbnail (exiftool -JFIF:all=), the step that takes libjpeg's JFIF
header away and leaves its table layout.
usage: forge-donor-tables.py AI_IMAGE DONOR_JPEG OUT_JPEG [--strip-jfif]"""
import io
import os
import subprocess
import sys

from PIL import Image, JpegImagePlugin

ai, donor, out = sys.argv[1:4]
strip = '--strip-jfif' in sys.argv[4:]


def exiftool(*args):
    subprocess.run(['exiftool', '-q', '-q', '-m', '-overwrite_original', *args], check=True)


d = Image.open(donor)
W, H = d.size
im = Image.open(ai).convert('RGB')
s = max(W / im.size[0], H / im.size[1])  # cover-fit, centre crop
if abs(s - 1) > 1e-6:
    im = im.resize((round(im.size[0] * s + 0.5), round(im.size[1] * s + 0.5)), Image.LANCZOS)
x0, y0 = (im.size[0] - W) // 2, (im.size[1] - H) // 2
im = im.crop((x0, y0, x0 + W, y0 + H))
im.save(out, 'JPEG', qtables=d.quantization, subsampling=JpegImagePlugin.get_sampling(d))
exiftool('-TagsFromFile', donor, '-all:all', '-unsafe', out)
t = subprocess.run(['exiftool', '-b', '-ThumbnailImage', donor], capture_output=True).stdout
tw, th = Image.open(io.BytesIO(t)).size if t else (160, 120)
tp = out + '.thumb.jpg'
im.resize((tw, th), Image.LANCZOS).save(tp, 'JPEG', quality=90)
if strip:
    exiftool('-JFIF:all=', tp)
exiftool(f'-ThumbnailImage<={tp}', out)
os.remove(tp)
if strip:
    exiftool('-JFIF:all=', out)
