"""Transport layer of the service: gRPC server, REST/JSON gateway, codec (dict <-> protobuf), errors.

Modules: ``codec`` (engine dicts <-> ``bummerl.v1`` messages), ``errors`` (domain errors and the one
table that maps them to gRPC/HTTP status), ``gateway`` (REST from the ``google.api.http``
annotations), ``interceptors`` (gRPC metrics), ``server`` (builds and runs the servers).
"""
