# Builds the "not a photograph" sets the guard is fitted and measured on, from what this machine has (nothing is
# downloaded, nothing is committed): .data/nonphoto/<group>/*.png
#   docs   : chromium screenshots of Debian's HTML documentation (/usr/share/doc), desktop and phone window sizes,
#            a third of them force-darkened (dark-mode UIs)
#   charts : matplotlib charts of matplotlib's sample data (lines, bars, scatter, pie, heatmaps, tables)
#   icons  : Adwaita / hicolor icons and the npm tree's app icons, flattened on a plain background, some with a caption
#   pdfs   : the first two pages of ../shared/datasets/pdfs rendered by pdftoppm (measuring only)
#   /usr/bin/python3 make_nonphoto.py [--docs 140]
import argparse
import glob
import hashlib
import os
import random
import subprocess
import sys

import numpy as np
from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))
TRAINING = os.path.dirname(HERE)
sys.path.insert(0, TRAINING)
import common  # noqa: E402

OUT = os.path.join(TRAINING, '.data', 'nonphoto')  # git-ignored, beside Data 2.0's restored files
REPO = os.path.dirname(os.path.dirname(TRAINING))
SHARED = os.path.join(os.path.dirname(REPO), 'shared', 'datasets')


def h(s):
    return int(hashlib.sha1(s.encode()).hexdigest()[:8], 16)


def docs(n):
    os.makedirs(os.path.join(OUT, 'docs'), exist_ok=True)
    pages = sorted(glob.glob('/usr/share/doc/**/*.html', recursive=True))
    random.Random('docs').shuffle(pages)
    sizes = [(1280, 800), (1440, 900), (1920, 1080), (1024, 768), (390, 844), (800, 1200)]
    for k, p in enumerate(pages[:n]):
        out = os.path.join(OUT, 'docs', '%03d_%s.png' % (k, os.path.basename(p)[:-5]))
        if os.path.exists(out):
            continue
        w, hh = sizes[h(p) % len(sizes)]
        cmd = ['chromium', '--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
               '--screenshot=' + out, '--window-size=%d,%d' % (w, hh)]
        if k % 3 == 2:
            cmd.append('--blink-settings=forceDarkModeEnabled=true')
        subprocess.run(cmd + ['file://' + p], capture_output=True, timeout=60)
        print('docs', k, w, hh, os.path.exists(out), flush=True)


def charts():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    os.makedirs(os.path.join(OUT, 'charts'), exist_ok=True)
    rng = np.random.default_rng(0)
    styles = ['default', 'ggplot', 'seaborn-v0_8', 'bmh', 'dark_background', 'fivethirtyeight', 'grayscale', 'classic']
    kinds = ['line', 'bar', 'scatter', 'pie', 'hist', 'heat', 'table', 'area']
    for k in range(64):
        kind, style = kinds[k % len(kinds)], styles[(k // len(kinds)) % len(styles)]
        with plt.style.context(style):
            fig, ax = plt.subplots(figsize=(rng.uniform(4, 10), rng.uniform(3, 7)), dpi=int(rng.choice([72, 100, 144])))
            x = np.arange(30)
            if kind == 'line':
                for j in range(rng.integers(1, 5)):
                    ax.plot(x, np.cumsum(rng.normal(size=30)), label='series %d' % j)
                ax.legend()
            elif kind == 'bar':
                ax.bar(['Q%d' % i for i in range(1, 9)], rng.uniform(1, 10, 8))
            elif kind == 'scatter':
                ax.scatter(rng.normal(size=200), rng.normal(size=200), c=rng.uniform(size=200), s=12)
            elif kind == 'pie':
                ax.pie(rng.uniform(1, 5, 5), labels=list('ABCDE'), autopct='%1.0f%%')
            elif kind == 'hist':
                ax.hist(rng.normal(size=1000), bins=30)
            elif kind == 'heat':
                im = ax.imshow(rng.normal(size=(12, 16)).cumsum(0), cmap=['viridis', 'magma', 'coolwarm', 'Blues'][k % 4])
                fig.colorbar(im)
            elif kind == 'table':
                ax.axis('off')
                ax.table(cellText=[['%.2f' % v for v in rng.uniform(0, 100, 5)] for _ in range(8)],
                         colLabels=['Claim', 'Amount', 'Paid', 'Open', 'Ratio'], loc='center')
            else:
                ax.stackplot(x, rng.uniform(0, 3, (3, 30)).cumsum(1))
            ax.set_title('Figure %d' % k)
            fig.savefig(os.path.join(OUT, 'charts', '%03d_%s.png' % (k, kind)))
            plt.close(fig)


def icons():
    os.makedirs(os.path.join(OUT, 'icons'), exist_ok=True)
    files = sorted(glob.glob('/usr/share/icons/*/512x512/*/*.png') + glob.glob('/usr/share/icons/*/256x256/*/*.png')
                   + glob.glob(os.path.join(REPO, 'node_modules', '**', '*icon*', '**', '*.png'), recursive=True)
                   + glob.glob(os.path.join(REPO, 'node_modules', '**', '*Icon*.png'), recursive=True))
    rng = random.Random('icons')
    for k, p in enumerate(files):
        try:
            im = Image.open(p).convert('RGBA')
        except Exception:  # noqa: BLE001
            continue
        if im.width < 96:
            continue
        bg = rng.choice([(255, 255, 255), (245, 245, 245), (30, 30, 30), (0, 120, 215), (250, 240, 220)])
        W = int(im.width * rng.uniform(1.1, 2.5))
        H = int(im.height * rng.uniform(1.1, 1.8))
        c = Image.new('RGB', (W, H), bg)
        c.paste(im, ((W - im.width) // 2, (H - im.height) // 3), im)
        if k % 2:
            ImageDraw.Draw(c).text((10, H - 24), os.path.basename(p)[:-4], fill=(0, 0, 0) if sum(bg) > 400 else (255, 255, 255))
        c.save(os.path.join(OUT, 'icons', '%03d_%s.png' % (k, os.path.basename(p)[:-4][:40])))


def pdfs():
    os.makedirs(os.path.join(OUT, 'pdfs'), exist_ok=True)
    for p in sorted(glob.glob(os.path.join(SHARED, 'pdfs', '*.pdf'))):
        base = os.path.join(OUT, 'pdfs', os.path.basename(p)[:-4])
        if os.path.exists(base + '.done'):
            continue
        try:  # the corpus holds a decompression bomb and fuzzed files: whatever pdftoppm renders in 30 s is kept
            subprocess.run(['pdftoppm', '-r', '96', '-f', '1', '-l', '2', '-png', p, base], capture_output=True, timeout=30)
        except subprocess.TimeoutExpired:
            pass
        open(base + '.done', 'w').close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--docs', type=int, default=140)
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(OUT, "charts")):
        charts()
    if not os.path.isdir(os.path.join(OUT, "icons")):
        icons()
    pdfs()
    docs(a.docs)
    for g in sorted(os.listdir(OUT)):
        print(g, len([f for f in os.listdir(os.path.join(OUT, g)) if f.endswith('.png')]))


if __name__ == '__main__':
    main()
