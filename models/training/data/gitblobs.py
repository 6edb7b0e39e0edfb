# Reading fetched mirrors with git only (no network): find a mirror's git directory, list a tree or a history's
# image blobs, check which blobs are present, and stream their bytes. Shared by build_manifests.py and restore.py.
import hashlib
import os
import subprocess


def git_dir(mirror_root, repo):
    """/<root>/owner+name/repo is a bare git dir, or a work tree with .git inside."""
    base = os.path.join(mirror_root, repo.replace('/', '+'), 'repo')
    if os.path.isdir(os.path.join(base, '.git')):
        return os.path.join(base, '.git')
    return base if os.path.isdir(base) else None


def git(gd, *args, inp=None):
    return subprocess.run(['git', '-c', 'core.quotePath=false', '--git-dir', gd, *args], input=inp,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False).stdout


def head(gd):
    return git(gd, 'rev-parse', 'HEAD').decode().strip()


def tree(gd, commit):
    """[(path, blob)] of the commit's tree (blobs only)."""
    out = []
    for line in git(gd, 'ls-tree', '-r', '-z', commit).split(b'\0'):
        if not line:
            continue
        meta, path = line.split(b'\t', 1)
        mode, typ, sha = meta.split()
        if typ == b'blob':
            out.append((path.decode('utf-8', 'replace'), sha.decode()))
    return out


def history(gd):
    """[(commit, path, blob)] for every blob added or modified anywhere in the history (newest first)."""
    raw = git(gd, 'log', '--all', '--raw', '-z', '--no-abbrev', '--no-renames', '--diff-filter=AM', '--format=C %H')
    out, commit = [], None
    parts = raw.split(b'\0')
    i = 0
    while i < len(parts):
        p = parts[i].strip(b'\n')
        if p.startswith(b'C '):
            commit = p[2:].decode()
            i += 1
            continue
        if p.startswith(b':'):
            fields = p.split()
            sha = fields[3].decode()
            path = parts[i + 1].decode('utf-8', 'replace') if i + 1 < len(parts) else ''
            out.append((commit, path, sha))
            i += 2
            continue
        i += 1
    return out


def present(gd, blobs):
    """{blob: size} for the blobs the mirror holds (large files are often absent from snapshots)."""
    if not blobs:
        return {}
    res = git(gd, 'cat-file', '--batch-check', inp=('\n'.join(blobs) + '\n').encode()).decode().splitlines()
    out = {}
    for line in res:
        f = line.split()
        if len(f) == 3 and f[1] == 'blob':
            out[f[0]] = int(f[2])
    return out


def read_blobs(gd, blobs):
    """Yield (blob, bytes) for present blobs, one `git cat-file --batch` process for all of them."""
    if not blobs:
        return
    p = subprocess.Popen(['git', '--git-dir', gd, 'cat-file', '--batch'], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        for sha in blobs:
            p.stdin.write((sha + '\n').encode())
            p.stdin.flush()
            header = p.stdout.readline().split()
            if len(header) != 3:
                yield sha, None
                continue
            size = int(header[2])
            data = p.stdout.read(size)
            p.stdout.read(1)
            yield sha, data
    finally:
        p.stdin.close()
        p.wait()


def blob_sha1(data):
    return hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()
