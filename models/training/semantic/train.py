# Fine-tunes the semantic branch on the trunk cache of cache.py: nsfwjs' MobileNetV2 (ImageNet-initialised, then
# nsfwjs-trained) with its 5-class head replaced by one AI-vs-real logit (global average pool -> dropout -> linear).
#   --train-from block_13 : blocks 13-16 + Conv_1 + head trained (last 4 inverted-residual blocks), trunk frozen
#   --train-from block_15 : blocks 15-16 + Conv_1 + head trained; blocks 13-14 frozen (run once over the cache)
#   --train-from head     : linear probe on the frozen pooled 1280-d features
# BatchNorm statistics stay frozen (pretrained moving mean/variance; gamma/beta train with their block). The cached
# views are a per-source sqrt-weighted, class-balanced subsample, so batches are drawn uniformly. Augmentation on the
# cached maps: horizontal flip. AdamW, warm-up + cosine. Then scores the eval caches and writes
# runs/RUN/scores-<set>.json in eval_v1.py's format (one "tile" per file: the sigmoid of the file's logit; grid 1).
# --teacher RUN,RUN,...: distillation; the loss is (1 - kd) x BCE(label) + kd x BCE(sigmoid of the teachers' mean logit).
#   OMP_NUM_THREADS=1 nice -n 5 /usr/bin/python3 train.py RUN --train-from block_13 --epochs 3
import argparse
import glob
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import keras_torch
import sem_common as S

STARTS = {'mixed9': 'mixed8', 'mixed10': 'mixed9', 'ihead': 'mixed10', 'block_6': 'block_5_add', 'block_7': 'block_6_project_BN', 'block_10': 'block_9_add', 'block_11': 'block_10_project_BN', 'block_13': 'block_12_add',
          'block_15': 'block_14_add', 'head': 'out_relu'}


class Head(nn.Module):
    def __init__(self, start, drop=0.2):
        super().__init__()
        self.body = keras_torch.KerasGraph(S.MODEL, start=start, end=S.OUT_LAYER) if start != S.OUT_LAYER else None
        self.drop = nn.Dropout(drop)
        self.fc = nn.Linear(S.FEAT, 1)

    def forward(self, x):
        if self.body is not None:
            x = self.body(x)
        if x.dim() == 4:
            x = x.mean((2, 3))
        return self.fc(self.drop(x)).view(-1)


@torch.no_grad()
def precompute(start, f, batch=128):
    """Frozen layers between the cache (block_12_add) and `start`, run once; pooled for the probe."""
    if start == S.SPLIT:
        return f
    g = keras_torch.KerasGraph(S.MODEL, start=S.SPLIT, end=start).eval()
    out = []
    for i in range(0, len(f), batch):
        y = g(torch.from_numpy(f[i:i + batch]).float())
        out.append((y.mean((2, 3)) if start == S.OUT_LAYER else y).numpy().astype(np.float16))
    return np.concatenate(out)


def load_train(permissive_only=False):
    """The train shards of SEM_CACHE and of the caches named in SEM_EXTRA_CACHES (comma-separated; further views of the
    same subsample, cache.py --first-view), concatenated. permissive_only: only the views of sources that
    data/licences.py calls permissive (each cache's train.json names its source indices)."""
    extra = [c for c in os.environ.get('SEM_EXTRA_CACHES', '').split(',') if c]
    dirs = [S.CACHE] + [os.path.join(os.path.dirname(S.CACHE), c) for c in extra]
    d = []
    for cd in dirs:
        names = json.load(open(os.path.join(cd, 'train.json')))['sources']
        if permissive_only:
            import licences
            ok = np.array([licences.permissive(n) for n in names])
        for p in sorted(glob.glob(os.path.join(cd, 'train_*.npz'))):
            if p.endswith('.tmp.npz'):
                continue
            x = dict(np.load(p))
            if permissive_only:
                m = ok[x['s'].astype(np.int64)]
                x = {k: v[m] for k, v in x.items()}
            d.append(x)
    return (np.concatenate([x['f'] for x in d]), np.concatenate([x['y'] for x in d]),
            np.concatenate([x['s'] for x in d]), np.concatenate([x['i'] for x in d]), len(d))


@torch.no_grad()
def logits(model, f, batch=128):
    model.eval()
    return np.concatenate([model(torch.from_numpy(f[i:i + batch]).float()).numpy() for i in range(0, len(f), batch)])


def score_sets(model, start, run_dir, steps, ckpt='ckpt.pt', sets=None):
    """Scores the eval caches in eval_v1.py's format (one "tile" per file: the sigmoid of its logit; grid 1)."""
    pre = {}
    for name in sets or S.EVAL_SETS:
        p = os.path.join(S.CACHE, name + '.npz')
        if not os.path.exists(p):
            print('no cache for', name)
            continue
        d = np.load(p)
        z = logits(model, precompute(start, d['f']))
        rows = []
        for k, r in S.cache_rows(name, d):
            lg = z[k]
            rows.append(dict(label=r['label'], source=r['source'], path=r['path'], tiles=[float(1 / (1 + np.exp(-lg)))],
                             grid=1, size=r.get('size'), logit=float(lg)))
        json.dump(dict(step=steps, ckpt=ckpt, set=name, tile=S.SIZE, stride=None, heat=1, rows=rows),
                  open(os.path.join(run_dir, 'scores-%s.json' % name), 'w'))
        pre[name] = len(rows)
    return pre


def teacher_targets(runs, start, x, y, fi):
    """The sigmoid of the teachers' mean logit on every training view (unflipped; the teachers were trained with flips),
    computed once and kept in runs/<first teacher>/teacher-<all teachers>.npz, refused if the views differ."""
    key = '+'.join(runs)
    p = os.path.join(S.RUNS, runs[0], 'teacher-%s.npz' % key.replace('/', '_'))
    if os.path.exists(p):
        c = np.load(p)
        if len(c['y']) == len(y) and (c['y'] == y).all() and (c['i'] == fi).all():
            print('teacher targets from', p, flush=True)
            return c['p']
        raise SystemExit('%s was computed on other training views' % p)
    t0 = time.time()
    z = np.zeros(len(y), np.float64)
    for r in runs:
        c = torch.load(os.path.join(S.RUNS, r, 'ckpt.pt'), map_location='cpu')
        if c['start'] != start:
            raise SystemExit('teacher %s starts at %s, not %s' % (r, c['start'], start))
        m = Head(start)
        m.load_state_dict(c['state'])
        z += logits(m, x)
    prob = (1 / (1 + np.exp(-z / len(runs)))).astype(np.float32)
    np.savez(p + '.tmp.npz', p=prob, y=y, i=fi)
    os.replace(p + '.tmp.npz', p)
    print('teacher targets: %d views, %d teachers, %.0f s' % (len(y), len(runs), time.time() - t0), flush=True)
    return prob


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('run')
    ap.add_argument('--train-from', default='block_13', choices=sorted(STARTS))
    ap.add_argument('--epochs', type=float, default=3)
    ap.add_argument('--batch', type=int, default=64)
    ap.add_argument('--lr', type=float, default=3e-4)
    ap.add_argument('--head-lr', type=float, default=1e-3)
    ap.add_argument('--wd', type=float, default=1e-2)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--frac', type=float, default=1.0, help='learning curve: train on this share of the cached files (all their views)')
    ap.add_argument('--snapshots', default='', help='steps after which the weights are kept (ckpt-stepN.pt) for scoring')
    ap.add_argument('--steps', type=int, default=0, help='fixed number of steps (overrides --epochs)')
    ap.add_argument('--permissive-only', action='store_true', help='train on the sources data/licences.py calls '
                    'permissive only (a build for commercial use)')
    ap.add_argument('--teacher', default='', help='distillation: comma-separated finished runs (same start) whose mean '
                    'logit on each training view is a soft target beside the label')
    ap.add_argument('--kd-weight', type=float, default=0.5, help='share of the loss on the teacher\'s soft target')
    args = ap.parse_args()
    torch.set_num_threads(int(os.environ.get('TORCH_THREADS', '1')))
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    run_dir = os.path.join(S.RUNS, args.run)
    os.makedirs(run_dir, exist_ok=True)
    t0 = time.time()
    f, y, s, fi, nshards = load_train(args.permissive_only)
    if args.frac < 1.0:  # a seeded share of the files, all views of each kept file
        ids = np.unique(fi)
        keep = set(np.random.default_rng(1000 + args.seed).permutation(ids)[:int(round(args.frac * len(ids)))].tolist())
        m = np.array([i in keep for i in fi])
        f, y, s, fi = f[m], y[m], s[m], fi[m]
    start = STARTS[args.train_from]
    x = precompute(start, f)
    del f
    soft = teacher_targets(args.teacher.split(','), start, x, y, fi) if args.teacher else None
    print('train views %d (files %d, shards %d), input %s, precompute %.0f s' % (
        len(y), len(np.unique(fi)), nshards, x.shape[1:], time.time() - t0), flush=True)
    model = Head(start)
    body = [p for n, p in model.named_parameters() if n.startswith('body.')]
    opt = torch.optim.AdamW([dict(params=body, lr=args.lr), dict(params=model.fc.parameters(), lr=args.head_lr)],
                            weight_decay=args.wd)
    steps = args.steps or int(args.epochs * len(y) / args.batch)
    warm = max(1, steps // 20)
    base = [g['lr'] for g in opt.param_groups]
    log = open(os.path.join(run_dir, 'log.jsonl'), 'a')
    t1 = time.time()
    seen = 0
    first = 0
    part = os.path.join(run_dir, 'ckpt-partial.pt')
    if os.path.exists(part):  # resume a run that was stopped (same args): weights, optimiser, step, sampler state
        c = torch.load(part)
        model.load_state_dict(c['state'])
        opt.load_state_dict(c['opt'])
        first, seen = c['step'] + 1, c['seen']
        rng.bit_generator.state = c['rng']
        print('resumed at step', first, flush=True)
    model.train()
    for step in range(first, steps):
        k = min(1.0, (step + 1) / warm) * 0.5 * (1 + np.cos(np.pi * step / steps))
        for g, b in zip(opt.param_groups, base):
            g['lr'] = b * k
        i = rng.integers(0, len(y), args.batch)
        xb = torch.from_numpy(x[i]).float()
        if xb.dim() == 4:
            flip = torch.from_numpy(rng.random(args.batch) < 0.5)
            xb[flip] = xb[flip].flip(3)
        yb = torch.from_numpy(y[i]).float()
        out = model(xb)
        loss = F.binary_cross_entropy_with_logits(out, yb)
        if soft is not None:
            loss = (1 - args.kd_weight) * loss + args.kd_weight * F.binary_cross_entropy_with_logits(
                out, torch.from_numpy(soft[i]).float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        seen += args.batch
        if str(step + 1) in args.snapshots.split(','):
            torch.save(dict(state=model.state_dict(), args=vars(args), start=start, step=step + 1),
                       os.path.join(run_dir, 'ckpt-step%d.pt' % (step + 1)))
        if step % 20 == 0 or step == steps - 1:
            rec = dict(step=step, loss=float(loss), lr=opt.param_groups[0]['lr'], seen=seen, t=round(time.time() - t1, 1))
            log.write(json.dumps(rec) + '\n')
            if step % 200 == 0 and step > first:
                torch.save(dict(state=model.state_dict(), opt=opt.state_dict(), step=step, seen=seen,
                                rng=rng.bit_generator.state), part + '.tmp')
                os.replace(part + '.tmp', part)
            log.flush()
            print(rec, flush=True)
    train_s = time.time() - t1
    torch.save(dict(state=model.state_dict(), args=vars(args), start=start), os.path.join(run_dir, 'ckpt.pt'))
    n_params = sum(p.numel() for p in model.parameters())
    cfg = dict(args=vars(args), start=start, cache_split=S.SPLIT, trainable_params=n_params,
               train_views=int(len(y)), train_files=int(len(np.unique(fi))), views_seen=seen, steps=steps,
               train_wall_s=round(train_s, 1), input='whole image resized to %dx%d (antialiased bilinear)' % (S.SIZE, S.SIZE), model=S.MODEL,
               cache=json.load(open(os.path.join(S.CACHE, 'train.json'))),
               extra_caches=os.environ.get('SEM_EXTRA_CACHES', ''))
    cfg['scored'] = score_sets(model, start, run_dir, steps)
    cfg['total_wall_s'] = round(time.time() - t0, 1)
    json.dump(cfg, open(os.path.join(run_dir, 'config.json'), 'w'), indent=1)
    print('done', json.dumps(cfg)[:600], flush=True)


if __name__ == '__main__':
    main()
