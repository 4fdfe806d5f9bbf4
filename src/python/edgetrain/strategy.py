"""A server strategy in Python, shaped like Flower's ``flwr.server.strategy.Strategy``, that edgetrain's engine
calls on the simulated clock (docs/how-to/python-policies.md).

A scenario names the class, ``"strategy": {"kind": "python", "python": "my_strategy.py:MyStrategy",
"settings": {...}}``; the settings are the constructor's keyword arguments. The engine calls, as Flower's
server does: ``initialize_parameters`` once, ``configure_fit`` at each round's start (which devices train),
``aggregate_fit`` when the round closes (the new global model), ``evaluate`` after it. The wall time these
take is not simulated time: what the server should be charged is what ``server_flops`` and
``message_bytes`` declare.

What differs from Flower, and why: the devices' updates arrive as edgetrain's model deltas
(``FitRes.update``: received - trained, decoded from exactly what the wire carried), zero-copy and
read-only; ``FitRes.parameters`` is Flower's view, the device's trained model, made on first use.
``Parameters`` holds the arrays themselves (nothing is serialised: the engine is in this process).
``self.rng`` is a seeded ``numpy.random.Generator`` (same seed, same results).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

NDArray = npt.NDArray[Any]
NDArrays = List[NDArray]
Scalar = Union[bool, bytes, float, int, str]
Metrics = Dict[str, Scalar]


@dataclass
class Parameters:
    """A model as a list of arrays, one per layer (Flower's holds serialised bytes; here nothing is serialised)."""

    tensors: NDArrays
    tensor_type: str = "numpy.ndarray"


def parameters_to_ndarrays(parameters: Parameters) -> NDArrays:
    """The arrays of ``parameters`` (Flower's function of the same name)."""
    return list(parameters.tensors)


def ndarrays_to_parameters(ndarrays: Sequence[NDArray]) -> Parameters:
    """``Parameters`` holding ``ndarrays`` (Flower's function of the same name)."""
    return Parameters(list(ndarrays))


@dataclass(frozen=True)
class ClientProxy:
    """A device: ``cid`` is its name in the scenario, ``index`` its position among the scenario's devices."""

    cid: str
    index: int


@dataclass
class FitIns:
    """What a device receives for a round: the server's model (``parameters``) and a ``config``, which must be
    empty (edgetrain's devices train as the scenario says: ``training.local_steps``, ``training.lr``)."""

    parameters: Optional[Parameters]
    config: Dict[str, Scalar] = field(default_factory=dict)


class FitRes:
    """One device's update, as it arrived at the server.

    ``update``: the decoded model delta, one read-only array per layer (received - trained: a step to subtract);
    ``num_examples``: the samples it trained on; ``metrics``: ``{"loss": its mean training loss}``;
    ``weight``: the weight the built-in FedAvg gives it; ``staleness``: server versions since its model (0 in
    rounds); ``arrival_s`` and ``round_time_s``: simulated time of its arrival and since its model was sent;
    ``bytes``: its size on the wire; ``received``: the model the device trained from (the round's, read-only).
    ``parameters``: Flower's view, the device's trained model (received - update), made on first use."""

    def __init__(self, update: NDArrays, received: Optional[NDArrays], num_examples: int, metrics: Metrics,
                 weight: float, staleness: int, arrival_s: float, round_time_s: float, bytes: int) -> None:
        self.update = update
        self.num_examples = num_examples
        self.metrics = metrics
        self.weight = weight
        self.staleness = staleness
        self.arrival_s = arrival_s
        self.round_time_s = round_time_s
        self.bytes = bytes
        self.received = received
        self._parameters: Optional[Parameters] = None

    @property
    def parameters(self) -> Parameters:
        if self._parameters is None:
            if self.received is None:
                raise ValueError("FitRes.parameters: a timing-only run trains no model")
            self._parameters = Parameters([r - u for r, u in zip(self.received, self.update)])
        return self._parameters


def weighted_mean_update(results: Sequence[Tuple[ClientProxy, FitRes]]) -> NDArrays:
    """The results' updates averaged as edgetrain's built-in FedAvg averages them, bit for bit: each update times
    its ``weight`` summed in float32, in the order the list holds them (arrival order), then scaled by ``1 /
    (the weights' sum)``, computed in double. Empty results have no mean (ValueError)."""
    if not results:
        raise ValueError("weighted_mean_update: no results")
    total = 0.0
    mean = [np.zeros(u.shape, np.float32) for u in results[0][1].update]
    for _, fit in results:
        weight = np.float32(fit.weight)
        for m, u in zip(mean, fit.update):
            m += weight * u
        total += fit.weight
    scale = np.float32(1.0 / total)
    return [m * scale for m in mean]


class ClientManager:
    """The devices a round may pick: those on, not busy with an earlier round, and (streaming) holding a batch."""

    def __init__(self, clients: Sequence[ClientProxy], rng: np.random.Generator) -> None:
        self._clients = {c.cid: c for c in clients}
        self._rng = rng

    def num_available(self) -> int:
        return len(self._clients)

    def all(self) -> Dict[str, ClientProxy]:
        return dict(self._clients)

    def sample(self, num_clients: int, min_num_clients: Optional[int] = None,
               criterion: Optional[Any] = None) -> List[ClientProxy]:
        """``num_clients`` of the available devices (all of them if fewer), drawn with the strategy's generator;
        ``criterion.select(client)`` filters them first, as in Flower."""
        clients = [c for c in self._clients.values() if criterion is None or criterion.select(c)]
        if num_clients >= len(clients):
            return clients
        picked = self._rng.choice(len(clients), size=num_clients, replace=False)
        return [clients[int(k)] for k in sorted(picked)]


class Strategy:
    """The base class of a Python strategy: override ``aggregate_fit`` (and any other method)."""

    rng: np.random.Generator  # set by the engine before any call: seeded from the scenario's seed

    def initialize_parameters(self, client_manager: ClientManager) -> Optional[Parameters]:
        """The initial global model; None: the engine's (seeded) initialisation."""
        return None

    def configure_fit(self, server_round: int, parameters: Optional[Parameters],
                      client_manager: ClientManager) -> List[Tuple[ClientProxy, FitIns]]:
        """The devices that train this round. Not overridden: ``training.selection`` picks them."""
        raise NotImplementedError

    def aggregate_fit(self, server_round: int, results: List[Tuple[ClientProxy, FitRes]],
                      failures: List[Any]) -> Tuple[Optional[Parameters], Metrics]:
        """The new global model from the round's updates (None: keep the model), and metrics to record."""
        raise NotImplementedError

    def configure_evaluate(self, server_round: int, parameters: Optional[Parameters],
                           client_manager: ClientManager) -> List[Tuple[ClientProxy, Any]]:
        """Federated evaluation is not simulated: edgetrain evaluates the global model on the test set."""
        return []

    def aggregate_evaluate(self, server_round: int, results: List[Any],
                           failures: List[Any]) -> Tuple[Optional[float], Metrics]:
        return None, {}

    def evaluate(self, server_round: int, parameters: Parameters) -> Optional[Tuple[float, Metrics]]:
        """A centralised evaluation of the new model after each round: (loss, metrics), recorded; None: none."""
        return None

    def server_flops(self, server_round: int, num_updates: int, num_params: int) -> float:
        """FLOPs the server's host is charged for aggregating beyond the weighted mean and its step (what the
        built-in FedAvg costs): declare what your rule adds (Krum: about n^2 d)."""
        return 0.0

    def message_bytes(self, num_params: int) -> Tuple[int, int]:
        """Bytes your strategy adds to every model sent down and to every update sent up (state of its own
        travelling beside them), charged to the links."""
        return 0, 0
