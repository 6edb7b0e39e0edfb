# The guard's verdict on the files of an evaluation set, as the product reaches it: measure.py's features and
# results.json's regression. flagged('val_raw') -> the set of score-file paths the guard takes for non-photographs.
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FEAT = os.path.join(os.path.dirname(HERE), '.cache', 'guard')
NAMES = ('flat', 'step', 'strong', 'top4')


def flagged(name):
    res = json.load(open(os.path.join(HERE, 'results.json')))
    coef = np.array(res['coef'])
    rows = json.load(open(os.path.join(FEAT, 'features-%s.json' % name)))
    return {r['path'] for r in rows if float(np.array([r['f'][k] for k in NAMES]) @ coef + res['intercept']) > res['threshold']}
