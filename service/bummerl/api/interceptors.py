"""``grpc.aio`` server interceptors. The chain is built in one place: :func:`build_interceptors`."""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import grpc.aio

from bummerl import metrics
from bummerl.api import errors

Clock = Callable[[], float]

access = logging.getLogger("bummerl.access")


def _code_of(context: Any, default: grpc.StatusCode) -> grpc.StatusCode:
    code = context.code()
    return code if isinstance(code, grpc.StatusCode) else default


class Recorder:
    """The metric children of one method plus the bookkeeping of one call's end (used by the gRPC
    interceptor and the REST gateway alike, so both count in the same ``grpc_server_*`` series)."""

    def __init__(self, type_: str, service: str, method: str, clock: Clock = time.perf_counter) -> None:
        labels = (type_, service, method)
        self.labels = labels
        self.clock = clock
        self.started = metrics.GRPC_SERVER_STARTED.labels(*labels)
        self.received = metrics.GRPC_SERVER_MSG_RECEIVED.labels(*labels)
        self.sent = metrics.GRPC_SERVER_MSG_SENT.labels(*labels)
        self.seconds = metrics.GRPC_SERVER_HANDLING_SECONDS.labels(*labels)

    def done(self, start: float, code: grpc.StatusCode) -> None:
        metrics.GRPC_SERVER_HANDLED.labels(*self.labels, metrics.GO_CODE_NAMES[code]).inc()
        self.seconds.observe(self.clock() - start)


def _final_code(context: Any, exc: BaseException | None) -> grpc.StatusCode:
    if exc is None:
        return _code_of(context, grpc.StatusCode.OK)
    if isinstance(exc, grpc.aio.AbortError):
        return _code_of(context, grpc.StatusCode.UNKNOWN)
    if isinstance(exc, asyncio.CancelledError | GeneratorExit):  # client went away
        return grpc.StatusCode.CANCELLED
    return grpc.StatusCode.UNKNOWN  # what grpc.aio answers for an uncaught exception


class _WrappingInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """An interceptor that replaces a method's handler by a wrapped one, built once per method
    (and again only if the server hands out another handler): subclasses give :meth:`_applies`
    and :meth:`_wrap`."""

    def __init__(self) -> None:
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    def _applies(self, handler: grpc.RpcMethodHandler) -> bool:
        return True

    def _wrap(self, handler: grpc.RpcMethodHandler, full_method: str) -> grpc.RpcMethodHandler:
        raise NotImplementedError

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Any],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = await continuation(handler_call_details)
        if handler is None or not self._applies(handler):
            return handler
        method = handler_call_details.method
        cached = self._wrapped.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self._wrap(handler, method)
        self._wrapped[method] = (handler, wrapped)
        return wrapped


class MetricsInterceptor(_WrappingInterceptor):
    """Records the go-grpc-prometheus ``grpc_server_*`` metrics (see :mod:`bummerl.metrics`) for
    unary and streaming RPCs. Labels are the RPC type, service and method only.

    ``clock`` returns seconds (default ``time.perf_counter``); tests may inject another.
    """

    def __init__(self, clock: Clock = time.perf_counter) -> None:
        super().__init__()
        self._clock = clock

    def _wrap(self, handler: grpc.RpcMethodHandler, full_method: str) -> grpc.RpcMethodHandler:
        service, _, name = full_method.lstrip("/").rpartition("/")
        rec = Recorder(
            metrics.grpc_type(handler.request_streaming, handler.response_streaming), service, name, self._clock
        )
        ser = {"request_deserializer": handler.request_deserializer, "response_serializer": handler.response_serializer}
        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(_unary_response(handler.unary_unary, rec, False), **ser)
        if handler.stream_unary:
            return grpc.stream_unary_rpc_method_handler(_unary_response(handler.stream_unary, rec, True), **ser)
        if handler.unary_stream:
            return grpc.unary_stream_rpc_method_handler(_stream_response(handler.unary_stream, rec, False), **ser)
        return grpc.stream_stream_rpc_method_handler(_stream_response(handler.stream_stream, rec, True), **ser)


async def _counted(requests: AsyncIterator[Any], rec: Recorder) -> AsyncIterator[Any]:
    async for request in requests:
        rec.received.inc()
        yield request


def _unary_response(behavior: Callable[..., Any], rec: Recorder, streaming_request: bool) -> Callable[..., Any]:
    async def wrapper(request: Any, context: Any) -> Any:
        start = rec.clock()
        rec.started.inc()
        if streaming_request:
            request = _counted(request, rec)
        else:
            rec.received.inc()
        exc: BaseException | None = None
        try:
            response = behavior(request, context)
            if inspect.isawaitable(response):
                response = await response
            if response is not None:
                rec.sent.inc()
            return response
        except BaseException as e:
            exc = e
            raise
        finally:
            rec.done(start, _final_code(context, exc))

    return wrapper


def _stream_response(behavior: Callable[..., Any], rec: Recorder, streaming_request: bool) -> Callable[..., Any]:
    def prologue(request: Any) -> tuple[float, Any]:
        start = rec.clock()
        rec.started.inc()
        if streaming_request:
            return start, _counted(request, rec)
        rec.received.inc()
        return start, request

    if inspect.isasyncgenfunction(behavior):

        async def gen_wrapper(request: Any, context: Any) -> AsyncIterator[Any]:
            start, request = prologue(request)
            exc: BaseException | None = None
            try:
                async for response in behavior(request, context):
                    rec.sent.inc()
                    yield response
            except BaseException as e:
                exc = e
                raise
            finally:
                rec.done(start, _final_code(context, exc))

        return gen_wrapper

    async def write_wrapper(request: Any, context: Any) -> Any:
        # A handler that streams with ``await context.write(...)`` (e.g. health Watch): its
        # messages are not counted one by one.
        start, request = prologue(request)
        exc: BaseException | None = None
        try:
            return await behavior(request, context)
        except BaseException as e:
            exc = e
            raise
        finally:
            rec.done(start, _final_code(context, exc))

    return write_wrapper


class _Malformed:
    """What a request deserializer returns for bytes that are not the request message."""

    __slots__ = ("error",)

    def __init__(self, error: str) -> None:
        self.error = error


def _safe_deserializer(deserialize: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    if deserialize is None:
        return None

    def safe(data: bytes) -> Any:
        try:
            return deserialize(data)
        except Exception as exc:  # noqa: BLE001 - any decode failure is the caller's malformed input
            return _Malformed(type(exc).__name__)

    return safe


async def _abort_malformed(context: Any, request: _Malformed) -> None:
    """INVALID_ARGUMENT with the ErrorInfo reason ``MALFORMED_REQUEST`` (docs/CLIENTS.md), as the
    REST gateway answers request bodies it cannot read."""
    status = errors.Status(grpc.StatusCode.INVALID_ARGUMENT, f"malformed request message ({request.error})",
                           reason="MALFORMED_REQUEST")
    await context.abort(status.code, status.details, status.rich_metadata())


class MalformedRequestInterceptor(_WrappingInterceptor):
    """Answers request bytes that do not decode as the RPC's request message with
    INVALID_ARGUMENT (instead of grpc's UNKNOWN and a logged traceback). Put it inside the
    metrics interceptor so that such calls are counted in ``grpc_server_handled_total``."""

    def _applies(self, handler: grpc.RpcMethodHandler) -> bool:
        return not handler.request_streaming

    def _wrap(self, handler: grpc.RpcMethodHandler, full_method: str) -> grpc.RpcMethodHandler:
        ser = {"request_deserializer": _safe_deserializer(handler.request_deserializer),
               "response_serializer": handler.response_serializer}
        if handler.unary_unary:
            behavior = handler.unary_unary

            async def unary(request: Any, context: Any) -> Any:
                if isinstance(request, _Malformed):
                    await _abort_malformed(context, request)
                return await behavior(request, context)

            return grpc.unary_unary_rpc_method_handler(unary, **ser)
        stream_behavior = handler.unary_stream

        async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
            if isinstance(request, _Malformed):
                await _abort_malformed(context, request)
            async for item in stream_behavior(request, context):
                yield item

        return grpc.unary_stream_rpc_method_handler(stream, **ser)


class AccessLogInterceptor(_WrappingInterceptor):
    """Logs one INFO line per call on the ``bummerl.access`` logger (on with ``access_log``):
    method, status code and milliseconds (the REST gateway logs its calls on the same logger). No
    request content, no tokens."""

    def _applies(self, handler: grpc.RpcMethodHandler) -> bool:
        return bool(handler.unary_unary) and access.isEnabledFor(logging.INFO)

    def _wrap(self, handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        behavior = handler.unary_unary

        async def logged(request: Any, context: Any) -> Any:
            t0 = time.perf_counter()
            exc: BaseException | None = None
            try:
                return await behavior(request, context)
            except BaseException as e:
                exc = e
                raise
            finally:
                access.info("grpc %s %s %.1f ms", method, _final_code(context, exc).name, (time.perf_counter() - t0) * 1000)

        return grpc.unary_unary_rpc_method_handler(logged, request_deserializer=handler.request_deserializer,
                                                   response_serializer=handler.response_serializer)


def build_interceptors(settings: Any = None) -> list[grpc.aio.ServerInterceptor]:
    """The server's interceptor chain, outermost first, built from ``settings``
    (:class:`bummerl.config.Settings`): metrics (always on: recording is cheap and
    ``metrics_port`` only decides whether they are served), the access log (INFO on ``bummerl.access``), and the
    malformed-request guard (innermost, so that its INVALID_ARGUMENT is counted)."""
    return [MetricsInterceptor(), AccessLogInterceptor(), MalformedRequestInterceptor()]
