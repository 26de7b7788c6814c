"""Linear layers whose weight is bound just before they run (the hook does the binding)."""

import torch
import torch.nn.functional as F


class StreamedLinear(torch.nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.flat_weight = None

    def numel(self):
        return self.in_features * self.out_features

    def forward(self, x):
        w = self.flat_weight.view(self.out_features, self.in_features)
        return F.gelu(F.linear(x, w))
