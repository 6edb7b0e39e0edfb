# Fuses the semantic branch with the shipped artefact model, file by file: logistic regression on the two logits
# (semantic: the file's logit; artefact: logit of veracity-detector 1.0's file score, top-3 mean of at most 32 tiles,
# as card_v1.py scores it). Fitted on the validation split only (val_raw + val_tx pooled); the validation figures
# are leave-one-source-out (each validation source scored by a fit that never saw it), modern/ is scored by the fit
# on all of validation (modern/ is never fitted on). Writes runs/OUT/scores-<set>.json (card_v1.py format, one tile:
# the fused probability) and prints AUCs; then `card_v1.py OUT` gives the card figures.
#   /usr/bin/python3 fuse.py SEM_RUN OUT [--artefact /work/main/models/training/runs/v1-ft-data2]
import argparse
import json
import os

import numpy as np

import sem_common as S
import card_v1

VAL = ('val_raw', 'val_tx')
MODERN = ('modern_raw', 'modern_jpeg90')
FLIPS = ('val_q70', 'val_half', 'val_palette',  # val_raw's files at JPEG q70 / half size: scored by their source's LOSO fit
         'valtilt_raw', 'valtilt_tx')  # validation portraits turned +20 / -30 degrees (eval_v1.valtilt_files): idem


def logit(p):
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def load(run_dir, name):
    return {r['path']: r for r in json.load(open(os.path.join(run_dir, 'scores-%s.json' % name)))['rows']}


def pairs(sem_dir, art_dir, name, sem2_dir=None, art2_dir=None):
    """(label, source, path, semantic logit, artefact logit, artefact row[, second semantic logit][, second artefact
    logit]) of the files every run scored."""
    sem, art = load(sem_dir, name), load(art_dir, name)
    sem2 = load(sem2_dir, name) if sem2_dir else None
    art2 = load(art2_dir, name) if art2_dir else None
    out = []
    for p, r in art.items():
        if p in sem and (sem2 is None or p in sem2) and (art2 is None or p in art2):
            a = logit(card_v1.file_score(r, 3, 32))
            out.append((r['label'], r['source'], p, sem[p]['logit'], float(a), r) + ((sem2[p]['logit'],) if sem2 else ())
                       + ((float(logit(card_v1.file_score(art2[p], 3, 32))),) if art2 else ()))
    return out


# feature sets -> the columns of a pairs() tuple they read (3: semantic logit, 4: artefact logit, 6: second semantic)
# (7: a second artefact network's logit, --artefact2; with --sem2 only)
COLS = {'both': [3, 4], 'sem': [3], 'art': [4], 'all3': [3, 4, 6], 'sems': [3, 6], 'all4': [3, 4, 6, 7], 'i2a': [6, 4, 7]}


def shaped(X, cols, floor=None, hinge=None):
    """The inputs as the regression reads them: the artefact logit floored (--art-floor), or a kinked copy of it added
    as one more column (--art-hinge); X unchanged when neither is set."""
    if floor is not None:
        X = X.copy()
        X[:, cols.index(4)] = np.maximum(X[:, cols.index(4)], floor)
    if hinge is not None:
        X = np.hstack([X, np.maximum(X[:, [cols.index(4)]], hinge)])
    return X


def apply_fit(info, name):
    """A recorded fusion (fusion.json's info: its full fit, artefact floor included) applied to the branches' scores of
    set `name`: (pairs() tuples, fused logits); ([], []) when a branch has not scored that set."""
    cols = COLS[info['features']]
    sem2 = os.path.join(S.RUNS, info['sem2']) if info.get('sem2') else None
    try:
        t = pairs(os.path.join(S.RUNS, info['sem']), info['artefact'], name, sem2, info.get('artefact2'))
    except FileNotFoundError:
        return [], np.zeros(0)
    if not t:
        return [], np.zeros(0)
    X = shaped(np.array([[x[c] for c in cols] for x in t]), cols, (info.get('art_floor') or {}).get('logit'),
               (info.get('art_hinge') or {}).get('logit'))
    return t, predict((np.array(info['mean']), np.array(info['sd']), np.array(info['coef_standardised'])), X)


def fit_lr(X, y, w=None, l2=1e-2, iters=50):
    """Logistic regression by Newton's method (standardised inputs, small L2), class-balanced weights."""
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = np.hstack([(X - mu) / sd, np.ones((len(X), 1))])
    if w is None:
        w = np.where(y == 1, 0.5 / max(1, y.sum()), 0.5 / max(1, (1 - y).sum()))
    b = np.zeros(Z.shape[1])
    for _ in range(iters):
        p = 1 / (1 + np.exp(-Z @ b))
        g = Z.T @ (w * (p - y)) + l2 * np.r_[b[:-1], 0]
        H = (Z * (w * p * (1 - p))[:, None]).T @ Z + l2 * np.diag(np.r_[np.ones(len(b) - 1), 0])
        b -= np.linalg.solve(H, g)
    return mu, sd, b


def predict(m, X):
    mu, sd, b = m
    return np.hstack([(X - mu) / sd, np.ones((len(X), 1))]) @ b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('sem')
    ap.add_argument('out')
    ap.add_argument('--artefact', default=S.SHIPPED_RUN)
    ap.add_argument('--features', default='both', choices=['both', 'sem', 'art', 'all3', 'sems', 'all4', 'i2a'])
    ap.add_argument('--artefact2', default='', help='a second artefact network\'s run (features all4 = all3 + its logit; '
                    'i2a = the second semantic logit + both artefact logits); needs --sem2')
    ap.add_argument('--sem2', default='', help='a second semantic run (another backbone): features all3 = both '
                    'semantic logits + the artefact logit, sems = the two semantic logits')
    ap.add_argument('--fit-on', default='val_raw,val_tx',
                    help='which validation sets the regression is fitted on (val_tx alone: format-neutral, both classes '
                         'through the same transforms); every validation set is still scored leave-one-source-out')
    ap.add_argument('--art-floor', type=float, default=None,
                    help='one-sided artefact evidence: the artefact logit is floored at this percentile of the fit set\'s '
                         'real files (its artefacts can raise the AI score; their absence cannot lower it below that of '
                         'a typical real photo: clean generators leave none)')
    ap.add_argument('--art-hinge', type=float, default=None,
                    help='adds a fourth input, max(artefact logit, this percentile of the fit set\'s real files): the '
                         'regression learns the slope below that kink (no artefacts at all need not mean "real")')
    ap.add_argument('--val21', action='store_true',
                    help='validation also holds the Data 2.1 sources (val21_raw, val21_tx): fitted (with --fit-on naming '
                         'them) and scored leave-one-source-out like the rest')
    ap.add_argument('--valpt', action='store_true',
                    help='validation also holds Data 2.2\'s real portraits (valpt_raw, valpt_tx), like --val21')
    args = ap.parse_args()
    global VAL
    if args.val21:
        VAL = VAL + ('val21_raw', 'val21_tx')
    if args.valpt:
        VAL = VAL + ('valpt_raw', 'valpt_tx')
    sem_dir = os.path.join(S.RUNS, args.sem)
    out_dir = os.path.join(S.RUNS, args.out)
    os.makedirs(out_dir, exist_ok=True)
    cols = COLS[args.features]
    sem2_dir = os.path.join(S.RUNS, args.sem2) if args.sem2 else None
    if (6 in cols) != bool(sem2_dir):
        ap.error('--features all3 / sems / all4 / i2a need --sem2, and --sem2 needs one of them')
    art2_dir = args.artefact2 or None
    if (7 in cols) != bool(art2_dir) or (art2_dir and not sem2_dir):
        ap.error('--features all4 / i2a need --artefact2 (and --sem2), and --artefact2 needs one of them')
    val = []
    for name in VAL:
        val += [(name,) + t for t in pairs(sem_dir, args.artefact, name, sem2_dir, art2_dir)]
    X = np.array([[t[1 + c] for c in cols] for t in val])
    y = np.array([1.0 if t[1] == 'ai' else 0.0 for t in val])
    src = np.array([t[2] for t in val])
    on = np.array([t[0] in args.fit_on.split(',') for t in val])
    floor = None
    if args.art_floor is not None:
        if 4 not in cols:
            ap.error('--art-floor needs the artefact feature')
        k = cols.index(4)
        floor = float(np.percentile(X[on & (y == 0), k], args.art_floor))

    hinge = None
    if args.art_hinge is not None:
        if 4 not in cols or floor is not None:
            ap.error('--art-hinge needs the artefact feature and no --art-floor')
        k = cols.index(4)
        hinge = float(np.percentile(X[on & (y == 0), k], args.art_hinge))
    X = shaped(X, cols, floor, hinge)

    def feats(tl):
        return shaped(np.array([[t[1 + c] for c in cols] for t in tl]), cols, floor, hinge)
    z = np.zeros(len(val))
    loso = {}
    for s in sorted(set(src)):  # leave one validation source out (both of its sets)
        m = loso[s] = fit_lr(X[on & (src != s)], y[on & (src != s)])
        z[src == s] = predict(m, X[src == s])
    full = fit_lr(X[on], y[on])
    info = dict(sem=args.sem, sem2=args.sem2 or None, artefact=args.artefact, features=args.features,
                **(dict(artefact2=art2_dir) if art2_dir else {}),
                art_floor=None if floor is None else dict(percentile=args.art_floor, logit=floor),
                **(dict(art_hinge=dict(percentile=args.art_hinge, logit=hinge)) if hinge is not None else {}),
                coef_standardised=full[2].tolist(),
                mean=full[0].tolist(), sd=full[1].tolist(),
                fitted_on='%s (LOSO for the validation scores)' % ' + '.join(args.fit_on.split(',')))
    res = {}
    def scored_by_all(n):  # every run the fusion reads has scored set n
        return all(os.path.exists(os.path.join(d, 'scores-%s.json' % n)) for d in (sem_dir, sem2_dir, args.artefact, art2_dir) if d)

    have = [n for n in FLIPS if scored_by_all(n)]
    more = tuple(n for n in ('modern_palette', 'd21train_raw', 'valface_raw', 'val21_raw', 'val21_tx', 'valpt_raw',
                             'valpt_tx', 'val23_raw') if n not in VAL and scored_by_all(n))  # the full fit on sets outside the fit
    for name in VAL + MODERN + more + tuple(have):
        if name in FLIPS:
            tl = [(name,) + t for t in pairs(sem_dir, args.artefact, name, sem2_dir, art2_dir) if t[1] in loso]
            zz = np.array([float(predict(loso[t[2]], feats([t]))[0]) for t in tl])
        elif name == 'valface_raw':  # validation files' faces: their source's LOSO fit where it has one, else the full
            tl = [(name,) + t for t in pairs(sem_dir, args.artefact, name, sem2_dir, art2_dir)]
            zz = np.array([float(predict(loso.get(t[2], full), feats([t]))[0]) for t in tl])
        elif name in VAL:
            idx = [i for i, t in enumerate(val) if t[0] == name]
            tl, zz = [val[i] for i in idx], z[idx]
        else:
            tl = [(name,) + t for t in pairs(sem_dir, args.artefact, name, sem2_dir, art2_dir)]
            zz = predict(full, feats(tl))
        rows = [dict(label=t[1], source=t[2], path=t[3], tiles=[float(1 / (1 + np.exp(-v)))], grid=1, logit=float(v),
                     sem_logit=t[4], art_logit=t[5], **(dict(sem2_logit=t[7]) if sem2_dir else {}),
                     **(dict(art2_logit=t[8]) if art2_dir else {})) for t, v in zip(tl, zz)]
        json.dump(dict(step=None, ckpt=None, set=name, tile=None, stride=None, heat=1, rows=rows, fusion=info),
                  open(os.path.join(out_dir, 'scores-%s.json' % name), 'w'))
        ai = [r['logit'] for r in rows if r['label'] == 'ai']
        re = [r['logit'] for r in rows if r['label'] == 'real']
        res[name] = card_v1.auc(ai, re)
    json.dump(info, open(os.path.join(out_dir, 'fusion.json'), 'w'), indent=1)
    print(json.dumps(info), json.dumps(res))


if __name__ == '__main__':
    main()
