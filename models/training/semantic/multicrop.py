# Multi-crop measurement for the semantic branch (not in the product): each eval file scored as the whole picture
# and as five 60 %-per-side crops (four corners, centre), each resized whole to 224; writes the six logits per file.
#   /usr/bin/python3 multicrop.py RUN val_raw,modern_raw [OUT_DIR]   -> OUT_DIR/mc-RUN-<set>.json (default /tmp)
import sys, os, json, numpy as np, torch
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.chdir(HERE)
import sem_common as S, export_onnx, train
from PIL import Image
torch.set_num_threads(1)
run=sys.argv[1]; sets=sys.argv[2].split(',')
st=torch.load('../runs/%s/ckpt.pt'%run); head=train.Head(st['start']); head.load_state_dict(st['state'])
m=export_onnx.Full(head, st['start']).eval()
def views(arr):
    H,W=arr.shape[:2]; out=[S.to224(arr)]
    h,w=int(H*0.6),int(W*0.6)
    for y,x in ((0,0),(0,W-w),(H-h,0),(H-h,W-w),((H-h)//2,(W-w)//2)):
        out.append(S.to224(arr[y:y+h,x:x+w]))
    return np.stack(out)
for name in sets:
    res=[]
    for lab,src,rel,ab in S.eval_files(name):
        try: arr=S.eval_input(name, open(ab,'rb').read(), ab)
        except Exception as e: continue
        with torch.no_grad(): z=m(torch.from_numpy(views(arr)).float().div_(255)).numpy()
        res.append(dict(label=lab,source=src,path=rel,z=z.tolist()))
    json.dump(res,open(os.path.join(sys.argv[3] if len(sys.argv)>3 else '/tmp','mc-%s-%s.json'%(run,name)),'w'))
    print(name,len(res),flush=True)
