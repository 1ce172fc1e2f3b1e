"""Transport layer of the service: gRPC server, REST/JSON gateway, codec (dict <-> protobuf), errors.

Modules: ``codec`` (engine dicts <-> ``bummerl.v1`` messages), ``errors`` (the one table that maps
domain errors to gRPC/HTTP status, and the ``map_errors`` handler decorator), ``metadata`` (seat
token from ``authorization: Bearer``), ``gateway`` (REST from the ``google.api.http``
annotations), ``interceptors`` (gRPC metrics), ``services`` (servicer -> service descriptor),
``server`` (builds the gRPC server and the gateway), ``servicer`` (GameService handlers).
"""
