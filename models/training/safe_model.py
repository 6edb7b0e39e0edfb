# veracity-detector 1.0's network: a SAFE-style artefact detector trained from scratch (Li et al. 2024, "Improving
# synthetic image detection towards generalization: an image transformation perspective"): the input is the Haar
# DWT's three high-frequency bands of each colour channel (computed inside the graph by a fixed stride-2 convolution,
# so the product feeds plain normalised RGB tiles), followed by a small residual network that keeps full resolution
# in its first stage (no stem pooling) so that pixel-level traces survive. Also an optional second input branch: the
# NPR residual (Tan et al. 2024), tile minus its 2x nearest down/up-sampled copy.
import torch
import torch.nn as nn
import torch.nn.functional as F


class HaarHigh(nn.Module):
    """Fixed orthonormal Haar DWT, level 1: (N,3,H,W) -> (N,9,H/2,W/2) = LH, HL, HH of each channel."""

    def __init__(self):
        super().__init__()
        lh = torch.tensor([[1., 1.], [-1., -1.]]) / 2
        hl = torch.tensor([[1., -1.], [1., -1.]]) / 2
        hh = torch.tensor([[1., -1.], [-1., 1.]]) / 2
        w = torch.zeros(9, 3, 2, 2)
        for c in range(3):
            for b, k in enumerate((lh, hl, hh)):
                w[c * 3 + b, c] = k
        self.register_buffer('weight', w)

    def forward(self, x):
        return F.conv2d(x, self.weight, stride=2)


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return F.relu(y + (x if self.short is None else self.short(x)))


class SafeNet(nn.Module):
    def __init__(self, widths=(32, 64, 128, 256), npr=False, dropout=0.2):
        super().__init__()
        self.dwt = HaarHigh()
        self.npr = npr
        cin = 9 + (12 if npr else 0)
        self.in_scale = nn.Parameter(torch.tensor(4.0))  # high bands are small: a learnt gain before the stem BN
        self.stem = nn.Sequential(nn.Conv2d(cin, widths[0], 3, 1, 1, bias=False), nn.BatchNorm2d(widths[0]),
                                  nn.ReLU(inplace=True))
        layers = []
        c = widths[0]
        for i, w in enumerate(widths):
            layers.append(Block(c, w, 1 if i == 0 else 2))
            c = w
        self.body = nn.Sequential(*layers)
        self.drop = nn.Dropout(dropout)
        self.fc = nn.Linear(c, 1)

    def features(self, x):
        h = self.dwt(x) * self.in_scale
        if self.npr:
            # NPR residual at half resolution: x - up(down(x)), space-to-depth to match the DWT grid (3 ch x 4)
            r = x - F.interpolate(F.avg_pool2d(x, 2), scale_factor=2, mode='nearest')
            r = F.pixel_unshuffle(r, 2) * self.in_scale
            h = torch.cat([h, r], 1)
        h = self.body(self.stem(h))
        return h

    def tile_map(self, x):
        """Per-position logits before pooling (for patch-level scoring)."""
        h = self.features(x)
        return F.conv2d(h, self.fc.weight[:, :, None, None], self.fc.bias)

    def forward(self, x):
        h = self.features(x)
        h = F.adaptive_avg_pool2d(h, 1).flatten(1)
        return self.fc(self.drop(h))


def count_params(m):
    return sum(p.numel() for p in m.parameters())
