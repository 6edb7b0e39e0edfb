# The guard's verdict on the files of an evaluation set, as the product reaches it: measure.py's features and
# results.json's regression (fit.py's own loader and scorer). flagged('val_raw') -> the set of score-file paths the
# guard takes for non-photographs.
import json
import os

import fit

HERE = os.path.dirname(os.path.abspath(__file__))


def flagged(name):
    res = json.load(open(os.path.join(HERE, 'results.json')))
    rows = fit.load(name)
    return {r['path'] for r, z in zip(rows, fit.score(rows, fit.np.array(res['coef']), res['intercept'])) if z > res['threshold']}
