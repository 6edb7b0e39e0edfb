# Aggregation check: AUC on the validation split and modern/ for several k of top_k_mean (same tiles, same model).
import pickle
import sys

import numpy as np
import torch

from common import CACHE, VAL_SOURCES, auc, score_image
from evaluate import load_model

torch.set_num_threads(1)
model, _ = load_model(sys.argv[1])
train = pickle.load(open(f'{CACHE}/train.pkl', 'rb'))
modern = pickle.load(open(f'{CACHE}/modern.pkl', 'rb'))
val = [it for it in train if (it['label'], it['source']) in VAL_SOURCES]
for setname, items in (('validation', val), ('modern', modern)):
    probs = [(it['label'], it['source'], np.sort(score_image(model, it['img'])[1])[::-1]) for it in items]
    for k in (1, 3, 5, 10, 1000):
        s = [(l, src, p[:k].mean()) for (l, src, p) in probs]
        a = auc([v for l, _, v in s if l == 'ai'], [v for l, _, v in s if l == 'real'])
        ng = auc([v for l, src, v in s if l == 'ai' and src != 'gptimage_cases'], [v for l, _, v in s if l == 'real'])
        print(setname, 'k', k, 'auc', round(a, 3), 'without gptimage', round(ng, 3), flush=True)
