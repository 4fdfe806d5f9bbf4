"""FedAdam (Reddi et al., ICLR 2021, Algorithm 2) in Python, as Flower's FedAdam, within 1e-6 of edgetrain's
built-in ``strategy.kind fedadam`` (tests/python/policies_test.py).

Flower's FedAdam averages the clients' weights and takes ``delta = average - current``; edgetrain's devices
send ``received - trained``, so the same delta is minus the updates' weighted mean. The moments are kept in
float64, as the built-in keeps them, and the server is charged what the built-in is: 8 FLOPs a parameter.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from edgetrain.strategy import (ClientProxy, FitRes, Metrics, NDArrays, Parameters, Strategy, ndarrays_to_parameters,
                                weighted_mean_update)


class FedAdam(Strategy):
    def __init__(self, eta: float = 0.1, beta_1: float = 0.9, beta_2: float = 0.99, tau: float = 1e-9) -> None:
        self.eta, self.beta_1, self.beta_2, self.tau = eta, beta_1, beta_2, tau
        self.m_t: Optional[NDArrays] = None
        self.v_t: Optional[NDArrays] = None

    def aggregate_fit(self, server_round: int, results: List[Tuple[ClientProxy, FitRes]],
                      failures: List[object]) -> Tuple[Optional[Parameters], Metrics]:
        if not results:
            return None, {}
        delta_t = [-m.astype(np.float64) for m in weighted_mean_update(results)]
        if self.m_t is None or self.v_t is None:
            self.m_t = [np.zeros_like(d) for d in delta_t]
            self.v_t = [np.zeros_like(d) for d in delta_t]
        self.m_t = [self.beta_1 * m + (1 - self.beta_1) * d for m, d in zip(self.m_t, delta_t)]
        self.v_t = [self.beta_2 * v + (1 - self.beta_2) * d * d for v, d in zip(self.v_t, delta_t)]
        received = results[0][1].received
        assert received is not None, "a timing-only run trains no model"
        model = [(x + self.eta * m / (np.sqrt(v) + self.tau)).astype(np.float32)
                 for x, m, v in zip(received, self.m_t, self.v_t)]
        return ndarrays_to_parameters(model), {}

    def server_flops(self, server_round: int, num_updates: int, num_params: int) -> float:
        return 8.0 * num_params  # the two moments, the root and the step: the built-in FedAdam's charge
