"""FedAvg in Python, equal bit for bit to edgetrain's built-in strategy (tests/python/policies_test.py).

The built-in FedAvg takes the updates' weighted mean (edgetrain.strategy.weighted_mean_update: float32 sums in
arrival order) and steps with LibTorch's SGD rule at training.server_lr (momentum and weight decay as
training.momentum and training.weight_decay): the same float32 operations in the same order give the same bits.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from edgetrain.strategy import (ClientProxy, FitRes, Metrics, NDArrays, Parameters, Strategy, ndarrays_to_parameters,
                                weighted_mean_update)


class FedAvg(Strategy):
    def __init__(self, server_lr: float = 1.0, momentum: float = 0.0, weight_decay: float = 0.0) -> None:
        self.server_lr = np.float32(server_lr)
        self.momentum = np.float32(momentum)
        self.weight_decay = np.float32(weight_decay)
        self.buffer: Optional[NDArrays] = None

    def aggregate_fit(self, server_round: int, results: List[Tuple[ClientProxy, FitRes]],
                      failures: List[object]) -> Tuple[Optional[Parameters], Metrics]:
        if not results:
            return None, {}
        mean = weighted_mean_update(results)
        received = results[0][1].received
        assert received is not None, "a timing-only run trains no model"
        steps = [m + self.weight_decay * x for m, x in zip(mean, received)]
        if self.momentum != 0:  # LibTorch's rule: the first step fills the buffer
            self.buffer = steps if self.buffer is None else [self.momentum * b + s for b, s in zip(self.buffer, steps)]
            steps = self.buffer
        model = [x - self.server_lr * s for x, s in zip(received, steps)]
        return ndarrays_to_parameters(model), {"updates": len(results)}
