"""Krum (Blanchard et al., NeurIPS 2017) in Python: the round's update nearest to its n - f - 2 nearest others
is applied alone, as edgetrain's ``defence.kind krum`` does (tests/python/policies_test.py compares them).
Its pairwise distances cost the server 1.5 n (n - 1) d + n d FLOPs, declared so the clock charges them."""
from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from edgetrain.strategy import ClientProxy, FitRes, Metrics, Parameters, Strategy, ndarrays_to_parameters


class Krum(Strategy):
    def __init__(self, byzantine: int = 1, server_lr: float = 1.0) -> None:
        self.byzantine = byzantine
        self.server_lr = np.float32(server_lr)

    def aggregate_fit(self, server_round: int, results: List[Tuple[ClientProxy, FitRes]],
                      failures: List[object]) -> Tuple[Optional[Parameters], Metrics]:
        if not results:
            return None, {}
        flat = np.stack([np.concatenate([u.ravel() for u in fit.update]).astype(np.float64) for _, fit in results])
        n = len(results)
        squares = (flat * flat).sum(axis=1)
        distances = np.maximum(squares[:, None] + squares[None, :] - 2.0 * flat @ flat.T, 0.0)
        nearest = int(np.clip(n - self.byzantine - 2, 1, max(n - 1, 1)))
        scores = [np.sort(np.delete(distances[i], i))[:nearest].sum() for i in range(n)]
        best = int(np.argmin(scores))  # the first of equal scores, as the built-in's stable order
        chosen = results[best][1]
        assert chosen.received is not None, "a timing-only run trains no model"
        model = [x - self.server_lr * (u + np.float32(0) * x) for x, u in zip(chosen.received, chosen.update)]
        return ndarrays_to_parameters(model), {"chosen_device": results[best][0].index}

    def server_flops(self, server_round: int, num_updates: int, num_params: int) -> float:
        n, d = float(num_updates), float(num_params)
        return 1.5 * n * (n - 1) * d + n * d
