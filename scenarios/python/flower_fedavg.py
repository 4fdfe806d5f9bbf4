"""Flower's FedAvg aggregate_fit, ported with its imports changed (docs/how-to/python-policies.md): it averages
the devices' trained models (FitRes.parameters), as Flower's clients send them, weighted by their samples.
FedAvg to float32 rounding; fedavg.py is the built-in's twin bit for bit."""
from __future__ import annotations

from functools import reduce
from typing import List, Optional, Tuple

import numpy as np

from edgetrain.strategy import (ClientProxy, FitRes, Metrics, NDArrays, Parameters, Strategy, ndarrays_to_parameters,
                                parameters_to_ndarrays)


class FedAvg(Strategy):
    def aggregate_fit(self, server_round: int, results: List[Tuple[ClientProxy, FitRes]],
                      failures: List[object]) -> Tuple[Optional[Parameters], Metrics]:
        weights = [(parameters_to_ndarrays(fit.parameters), fit.num_examples) for _, fit in results]
        total = sum(n for _, n in weights)
        layers: List[NDArrays] = [[layer * n for layer in ws] for ws, n in weights]
        average = [reduce(np.add, layer) / total for layer in zip(*layers)]
        return ndarrays_to_parameters(average), {}
