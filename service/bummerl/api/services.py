"""Which gRPC service a servicer object implements (from its generated ``*Servicer`` base class)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf.descriptor import ServiceDescriptor


@dataclass(frozen=True)
class ServiceBinding:
    """A servicer object with its service descriptor and generated ``add_*_to_server`` function."""

    servicer: Any
    descriptor: ServiceDescriptor
    add_to_server: Callable[[Any, Any], None]

    @property
    def full_name(self) -> str:
        """E.g. ``"bummerl.v1.GameService"``."""
        return str(self.descriptor.full_name)


def bind(servicer: Any) -> ServiceBinding:
    """The binding of ``servicer``, an instance of a subclass of a generated ``<Name>Servicer``
    class (module ``..._pb2_grpc``). Raises ``TypeError`` if it has no such base."""
    for cls in type(servicer).__mro__:
        module = cls.__module__
        name = cls.__name__
        if not (module.endswith("_pb2_grpc") and name.endswith("Servicer")):
            continue
        grpc_module = sys.modules[module]
        add = getattr(grpc_module, f"add_{name}_to_server", None)
        pb2 = importlib.import_module(module.removesuffix("_grpc"))
        descriptor = pb2.DESCRIPTOR.services_by_name.get(name.removesuffix("Servicer"))
        if add is not None and descriptor is not None:
            return ServiceBinding(servicer, descriptor, add)
    raise TypeError(f"{type(servicer).__name__} does not subclass a generated *Servicer class")


def bind_all(handlers: Mapping[str, Any] | Iterable[Any]) -> list[ServiceBinding]:
    """Bindings for servicer objects, given as an iterable or as ``{service full name: servicer}``
    (the name is checked against the servicer's generated base)."""
    if isinstance(handlers, Mapping):
        bindings = []
        for name, servicer in handlers.items():
            binding = bind(servicer)
            if binding.full_name != name:
                raise TypeError(f"servicer for {name} implements {binding.full_name}")
            bindings.append(binding)
        return bindings
    return [bind(s) for s in handlers]
