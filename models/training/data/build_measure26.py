# Data 2.6's measuring set (seventeenth session; candidates-data26.md, candidates-data26b.md): first-generation API outputs of today's
# generators committed by the bots that made them. For measuring only: never in a training list, a fit or a
# threshold (not in sources.py). Two of the three repositories have no licence (the files are read here, never
# redistributed); the Imagen set is MIT and could become a training source later.
#   /usr/bin/python3 build_measure26.py [MIRROR_ROOT]     writes measure26.tsv from the mirrors (fetch github:<repo>)
# then restore_measure24.py --set 26 writes the files (metadata stripped, pixels unchanged) into .data/measure26/.
import collections
import csv
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sources import FORBIDDEN_REPOS, SOURCES  # noqa: E402

REPOS = [
    # repo, commit, include (regex on the path), licence; label() gives each file's generator and group
    ('ncejda-g2/ncejda-g2', '8ddeaaea0a6e991cd02a4337302d6746bb45b12f',
     r'^daily_agent/generated_images/comic_\d{4}-\d{2}-\d{2}\.png$',
     'no licence (a person\'s profile repository): measured on, never redistributed or trained on'),
    ('bldbttr/rennie.org', '44d385ad9b3b939e1d47710dccf0fd42bf6f0418', r'^(generated|output)/.*\.png$',
     'no licence (personal homepage): measured on, never redistributed or trained on'),
    ('hvalfangst/daily-panda-image-bot', '88e1ca806ea916ac68696ae1ccc15517b4728cde',
     r'^images/panda_\d{4}-\d{2}-\d{2}\.png$',
     'no licence (a bot\'s repository): measured on, never redistributed or trained on'),
    ('Sunwood-ai-labsII/gemini-actions-lab', 'bbc29c27eaceaf95c023dd08617d92aee14f8443', r'^generated-images/.*\.png$',
     'MIT (the repository\'s own workflows generated them)'),
]

NANO = {'gemini-3-pro-image-preview': ('Nano Banana Pro (gemini-3-pro-image-preview)', 'NanoBananaPro'),
        'gemini-2.5-flash-image-preview': ('Nano Banana (gemini-2.5-flash-image-preview)', 'NanoBanana'),
        'gemini-2.5-flash-image': ('Nano Banana (gemini-2.5-flash-image)', 'NanoBanana'),
        'gemini-2.5-flash': ('Nano Banana (metadata says gemini-2.5-flash)', 'NanoBanana'),
        'gemini-3.1-flash-image-preview': ('Nano Banana 2 (gemini-3.1-flash-image-preview)', 'NanoBanana2')}


def git(repo_dir, *args):
    return subprocess.run(['git', '--git-dir', repo_dir] + list(args), check=True, capture_output=True).stdout


def label(repo, path, tree, repo_dir):
    if repo == 'ncejda-g2/ncejda-g2':
        return 'gpt-image-2 (daily_agent calls openai/gpt-image-2; OpenAI C2PA in the files)', 'gpt-image-2'
    if repo == 'hvalfangst/daily-panda-image-bot':  # every file at this commit is dated 2026-04-19 or later
        return 'gpt-image-1-mini (the bot\'s generator from 2026-04-19 on; OpenAI C2PA in the files)', 'gpt-image-1-mini'
    if repo == 'Sunwood-ai-labsII/gemini-actions-lab':
        name = os.path.basename(path)
        if name.startswith('imagen-4-ultra'):
            return 'Imagen 4 Ultra (file name, metadata.json)', 'Imagen4'
        return 'Imagen 4 (file name, metadata.json)', 'Imagen4'
    # rennie.org: the sibling metadata/<name>_metadata.json says the model
    meta = re.sub(r'/images/([^/]+)\.png$', r'/metadata/\1_metadata.json', path)
    if meta != path and meta in tree:
        info = json.loads(git(repo_dir, 'cat-file', 'blob', tree[meta][0]))
        model = info.get('model') or info.get('generation', {}).get('model', '')
        if model in NANO:
            return NANO[model]
    return 'Nano Banana family, model not recorded (no metadata file)', 'NanoBanana-unlabelled'


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '/work/.mirror'
    used = {s['repo'] for s in SOURCES}
    for repo, *_ in REPOS:  # never a forbidden repository, never one a training list already takes
        assert repo not in FORBIDDEN_REPOS and repo not in used, repo
    rows, seen = [], set()
    for repo, commit, include, licence in REPOS:
        repo_dir = os.path.join(root, repo.replace('/', '+'), 'repo')
        tree = {}
        for line in git(repo_dir, 'ls-tree', '-r', '-l', commit).decode().splitlines():
            meta, path = line.split('\t', 1)
            _, kind, blob, size = meta.split()
            if kind == 'blob':
                tree[path] = (blob, int(size) if size != '-' else 0)
        for path in sorted(p for p in tree if re.search(include, p)):
            blob, size = tree[path]
            if blob in seen:  # the same picture under two paths
                continue
            seen.add(blob)
            gen, group = label(repo, path, tree, repo_dir)
            rows.append({'repo': repo, 'commit': commit, 'path': path, 'blob': blob, 'bytes': size, 'licence': licence,
                         'class': 'ai', 'generator': gen, 'group': group})
    with open(os.path.join(HERE, 'measure26.tsv'), 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), delimiter='\t', lineterminator='\n')
        w.writeheader()
        w.writerows(rows)
    print(len(rows), 'files:', dict(collections.Counter(r['group'] for r in rows)))


if __name__ == '__main__':
    main()
