# Trains the noise-residual classifiers on the cached features (cache.py) and scores the eval sets in eval_v1.py's
# format (runs/noise-<name>/scores-<set>.json: rows with label, source, path, tiles=[prob], grid=1, logit), so that
# semantic/results.py's card() and fuse.py read them. Models, on features standardised with the training mean/std and
# clipped to +-5:
#   lr   logistic regression (Newton, class-balanced, L2 picked on validation)
#   mlp  torch MLP 2x64 ReLU, dropout, AdamW, full batch (width / weight decay picked on validation)
#   gbt  gradient-boosted depth-3 trees on 32 quantile bins, logistic loss (numpy; rounds picked on validation)
# Choices (L2, width, rounds) use the validation sets only (val_raw + val_tx pooled AUC); modern/ never.
#   /usr/bin/python3 train.py [--views raw,tx] [--models lr,mlp,gbt] [--tag ""]
import argparse
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.environ.get('SEM_DIR', '/work/main/models/training/semantic'))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sem_common as S  # noqa: E402
import card_v1  # noqa: E402
import cache as C  # noqa: E402
import features as F  # noqa: E402

EVAL = ('val_raw', 'val_tx', 'modern_raw', 'modern_jpeg90', 'val_q70', 'val_half')


# ---------------------------------------------------------------- models
def fit_lr(Z, y, w, l2, iters=30):
    Z1 = np.hstack([Z, np.ones((len(Z), 1))])
    b = np.zeros(Z1.shape[1])
    R = l2 * np.diag(np.r_[np.ones(Z.shape[1]), 0])
    for _ in range(iters):
        p = 1 / (1 + np.exp(-np.clip(Z1 @ b, -30, 30)))
        g = Z1.T @ (w * (p - y)) + R @ b
        H = (Z1 * (w * p * (1 - p))[:, None]).T @ Z1 + R
        b -= np.linalg.solve(H, g)
    return lambda X: np.hstack([X, np.ones((len(X), 1))]) @ b, b


def fit_mlp(Z, y, w, hidden, wd, steps=1500, seed=0):
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    m = torch.nn.Sequential(torch.nn.Linear(Z.shape[1], hidden), torch.nn.ReLU(), torch.nn.Dropout(0.2),
                            torch.nn.Linear(hidden, hidden), torch.nn.ReLU(), torch.nn.Dropout(0.2),
                            torch.nn.Linear(hidden, 1))
    opt = torch.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=wd)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    Xt, yt, wt = torch.tensor(Z, dtype=torch.float32), torch.tensor(y, dtype=torch.float32), torch.tensor(w, dtype=torch.float32)
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        idx = torch.randint(0, len(Xt), (512,), generator=g)
        xb = Xt[idx] + 0.05 * torch.randn(len(idx), Xt.shape[1], generator=g)  # small input noise
        loss = (torch.nn.functional.binary_cross_entropy_with_logits(m(xb)[:, 0], yt[idx], reduction='none') * wt[idx]).sum() / wt[idx].sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    m.eval()

    def pred(X):
        with torch.no_grad():
            return m(torch.tensor(X, dtype=torch.float32))[:, 0].numpy().astype(np.float64)
    return pred, m


class GBT:
    """Gradient-boosted regression trees (depth DEPTH, histogram splits on NB quantile bins), logistic loss."""

    def __init__(self, Z, nb=32):
        self.edges = [np.unique(np.quantile(Z[:, j], np.linspace(0, 1, nb + 1)[1:-1])) for j in range(Z.shape[1])]
        self.nb = nb

    def bins(self, X):
        return np.stack([np.searchsorted(self.edges[j], X[:, j], side='right') for j in range(X.shape[1])], 1).astype(np.int32)

    def fit(self, Z, y, w, rounds=400, lr=0.05, depth=3, lam=1.0, min_h=5.0, subsample=0.7, colsample=0.7, seed=0, eval_fn=None, every=25):
        rng = np.random.default_rng(seed)
        B = self.bins(Z)
        n, d = B.shape
        w = w / w.mean()
        self.base = float(np.log(np.sum(w * y) / np.sum(w * (1 - y))))
        f = np.full(n, self.base)
        self.trees, self.lr, self.depth = [], lr, depth
        curve = []
        off = (np.arange(d) * self.nb)[None, :]
        for t in range(rounds):
            p = 1 / (1 + np.exp(-f))
            g, h = w * (p - y), w * p * (1 - p)
            rows = np.nonzero(rng.random(n) < subsample)[0]
            cols = np.nonzero(rng.random(d) < colsample)[0]
            tree = []  # per level: list of (feature, bin threshold) per node; leaves values
            node = np.zeros(n, np.int64)
            for lev in range(depth):
                splits = []
                nn = 2 ** lev
                Br = B[rows][:, cols] + (np.arange(len(cols)) * self.nb)[None, :]
                for k in range(nn):
                    sel = node[rows] == k
                    if sel.sum() < 2:
                        splits.append((0, self.nb))
                        continue
                    bb = Br[sel].ravel()
                    G = np.bincount(bb, np.repeat(g[rows][sel], len(cols)), len(cols) * self.nb).reshape(len(cols), self.nb)
                    H = np.bincount(bb, np.repeat(h[rows][sel], len(cols)), len(cols) * self.nb).reshape(len(cols), self.nb)
                    GL, HL = np.cumsum(G, 1)[:, :-1], np.cumsum(H, 1)[:, :-1]
                    Gt, Ht = G.sum(1, keepdims=True), H.sum(1, keepdims=True)
                    GR, HR = Gt - GL, Ht - HL
                    gain = GL ** 2 / (HL + lam) + GR ** 2 / (HR + lam) - Gt ** 2 / (Ht + lam)
                    gain[(HL < min_h * h[rows].mean()) | (HR < min_h * h[rows].mean())] = -1
                    j, b = np.unravel_index(np.argmax(gain), gain.shape)
                    splits.append((int(cols[j]), int(b)) if gain[j, b] > 0 else (0, self.nb))
                tree.append(splits)
                fj = np.array([s[0] for s in splits])[node]
                fb = np.array([s[1] for s in splits])[node]
                node = node * 2 + (B[np.arange(n), fj] > fb)
            nl = 2 ** depth
            Gl = np.bincount(node[rows], g[rows], nl)
            Hl = np.bincount(node[rows], h[rows], nl)
            leaf = -Gl / (Hl + lam)
            self.trees.append((tree, leaf))
            f += lr * leaf[node]
            if eval_fn is not None and (t + 1) % every == 0:
                curve.append((t + 1, eval_fn(self, t + 1)))
        return curve

    def predict(self, X, rounds=None, B=None):
        B = self.bins(X) if B is None else B
        n = len(B)
        f = np.full(n, self.base)
        for tree, leaf in self.trees[:rounds]:
            node = np.zeros(n, np.int64)
            for splits in tree:
                fj = np.array([s[0] for s in splits])[node]
                fb = np.array([s[1] for s in splits])[node]
                node = node * 2 + (B[np.arange(n), fj] > fb)
            f += self.lr * leaf[node]
        return f


# ---------------------------------------------------------------- data
def balanced(y):
    return np.where(y == 1, 0.5 / max(1, y.sum()), 0.5 / max(1, (1 - y).sum())) * len(y)


def val_auc(score_fn, ev):
    z = np.concatenate([score_fn(ev[n][0]) for n in ('val_raw', 'val_tx')])
    y = np.concatenate([ev[n][2] for n in ('val_raw', 'val_tx')])
    return card_v1.auc(z[y == 1], z[y == 0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--views', default='raw,tx')
    ap.add_argument('--models', default='lr,mlp,gbt')
    ap.add_argument('--tag', default='')
    ap.add_argument('--total', type=int, default=3000)
    ap.add_argument('--rounds', type=int, default=800, help='gbt: most rounds; the count is picked on validation')
    ap.add_argument('--only', default='', help='regex: keep only the features whose name matches (baselines)')
    args = ap.parse_args()
    import re
    fsel = np.array([bool(re.search(args.only, n)) if args.only else True for n in F.FEATURES])
    fnames = [n for n, k in zip(F.FEATURES, fsel) if k]
    views = args.views.split(',')
    X, M = C.load('train', args.total)
    keep = np.array([m['view'] in views for m in M])
    X, M = X[keep][:, fsel], [m for m, k in zip(M, keep) if k]
    y = np.array([1.0 if m['label'] == 'ai' else 0.0 for m in M])
    mu, sd = X.mean(0), X.std(0) + 1e-6
    norm = lambda A: np.clip((A - mu) / sd, -5, 5)  # noqa: E731
    Z = norm(X)
    w = balanced(y)
    ev = {}
    for n in EVAL:
        Xe, Me = C.load(n)
        if len(Xe):
            ev[n] = (norm(Xe[:, fsel]), Me, np.array([1.0 if m['label'] == 'ai' else 0.0 for m in Me]))
    nfiles = len({m['path'] for m in M})
    print('train rows %d (files %d, views %s; ai %d real %d); eval %s' % (
        len(y), nfiles, views, y.sum(), (1 - y).sum(), {n: len(v[1]) for n, v in ev.items()}), flush=True)
    for kind in args.models.split(','):
        t0 = time.time()
        choice = {}
        if kind == 'lr':
            best = None
            for l2 in (1e-4, 1e-3, 1e-2, 1e-1):
                pred, b = fit_lr(Z, y, w / w.sum(), l2)
                a = val_auc(pred, ev)
                choice['l2=%g' % l2] = a
                if best is None or a > best[0]:
                    best = (a, pred, dict(l2=l2, coef=dict(zip(fnames + ['bias'], np.round(b, 4).tolist()))))
        elif kind == 'mlp':
            best = None
            for hidden in (32, 128):
                for wd in (1e-3, 1e-1):
                    pred, _ = fit_mlp(Z, y, w, hidden, wd)
                    a = val_auc(pred, ev)
                    choice['hidden=%d wd=%g' % (hidden, wd)] = a
                    if best is None or a > best[0]:
                        best = (a, pred, dict(hidden=hidden, wd=wd, steps=1500, batch=512))
        elif kind == 'gbt':
            g = GBT(Z)
            vb = {n: g.bins(ev[n][0]) for n in ('val_raw', 'val_tx')}
            yv = np.concatenate([ev[n][2] for n in ('val_raw', 'val_tx')])

            def ef(model, r):
                z = np.concatenate([model.predict(None, r, vb[n]) for n in ('val_raw', 'val_tx')])
                return card_v1.auc(z[yv == 1], z[yv == 0])
            curve = g.fit(Z, y, w, rounds=args.rounds, eval_fn=ef, every=25)
            choice = {'rounds=%d' % r: a for r, a in curve}
            r_best, a_best = max(curve, key=lambda t: t[1])
            best = (a_best, lambda A, r=r_best: g.predict(A, r), dict(rounds=r_best, depth=3, lr=0.05, bins=32))
        else:
            raise ValueError(kind)
        name = 'noise-%s%s' % (kind, args.tag)
        run_dir = os.path.join(S.RUNS, name)
        os.makedirs(run_dir, exist_ok=True)
        pred = best[1]
        scored = {}
        for n, (Ze, Me, ye) in ev.items():
            z = pred(Ze)
            rows = [dict(label=m['label'], source=m['source'], path=m['path'], tiles=[float(1 / (1 + np.exp(-v)))],
                         grid=1, size=[m['w'], m['h']], logit=float(v)) for m, v in zip(Me, z)]
            json.dump(dict(step=None, ckpt=None, set=n, tile=None, stride=None, heat=1, rows=rows),
                      open(os.path.join(run_dir, 'scores-%s.json' % n), 'w'))
            scored[n] = dict(n=len(rows), auc=card_v1.auc(z[ye == 1], z[ye == 0]))
        cfg = dict(name=name, model=kind, views=views, total=args.total, train_rows=len(y), train_files=nfiles,
                   features=len(fnames), only=args.only or None, crop=F.CROP, n_crops=F.N_CROPS, val_auc_choice=choice,
                   chosen=best[2], val_auc=best[0], fit_wall_s=round(time.time() - t0, 1), scored=scored)
        json.dump(cfg, open(os.path.join(run_dir, 'config.json'), 'w'), indent=1)
        print(name, 'val AUC %.3f' % best[0], json.dumps({k: v for k, v in cfg.items() if k in ('chosen', 'fit_wall_s', 'val_auc_choice')})[:700],
              {n: round(v['auc'], 3) for n, v in scored.items()}, flush=True)


if __name__ == '__main__':
    main()
