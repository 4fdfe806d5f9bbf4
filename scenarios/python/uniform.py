"""A uniform random selection in Python, drawn with the policy's seeded generator: the cost of a Python
selection over a population of a million devices (tools/bench: python-policies) is this call's."""
from __future__ import annotations

import numpy as np
import numpy.typing as npt

from edgetrain.policies import Devices, SelectionPolicy


class Uniform(SelectionPolicy):
    def select(self, server_round: int, candidates: npt.NDArray[np.int64], num_clients: int) -> Devices:
        if num_clients >= len(candidates):
            return candidates
        return self.rng.choice(candidates, size=num_clients, replace=False)
