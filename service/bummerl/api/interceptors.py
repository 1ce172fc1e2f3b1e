"""``grpc.aio`` server interceptors. The chain is built in one place: :func:`build_interceptors`."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import grpc.aio

from bummerl import metrics

Clock = Callable[[], float]


def _code_of(context: Any, default: grpc.StatusCode) -> grpc.StatusCode:
    code = context.code()
    return code if isinstance(code, grpc.StatusCode) else default


class _Recorder:
    """The metric children of one method plus the bookkeeping of one call's end."""

    def __init__(self, type_: str, service: str, method: str, clock: Clock) -> None:
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


class MetricsInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Records the go-grpc-prometheus ``grpc_server_*`` metrics (see :mod:`bummerl.metrics`) for
    unary and streaming RPCs. Labels are the RPC type, service and method only.

    ``clock`` returns seconds (default ``time.perf_counter``); tests may inject another.
    """

    def __init__(self, clock: Clock = time.perf_counter) -> None:
        self._clock = clock
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Any],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        cached = self._wrapped.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self._wrap(handler, method)
        self._wrapped[method] = (handler, wrapped)
        return wrapped

    def _wrap(self, handler: grpc.RpcMethodHandler, full_method: str) -> grpc.RpcMethodHandler:
        service, _, name = full_method.lstrip("/").rpartition("/")
        rec = _Recorder(
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


async def _counted(requests: AsyncIterator[Any], rec: _Recorder) -> AsyncIterator[Any]:
    async for request in requests:
        rec.received.inc()
        yield request


def _unary_response(behavior: Callable[..., Any], rec: _Recorder, streaming_request: bool) -> Callable[..., Any]:
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


def _stream_response(behavior: Callable[..., Any], rec: _Recorder, streaming_request: bool) -> Callable[..., Any]:
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


def build_interceptors(settings: Any = None) -> list[grpc.aio.ServerInterceptor]:
    """The server's interceptor chain, outermost first, built from ``settings``
    (:class:`bummerl.config.Settings`; currently only metrics, always on: recording is cheap and
    ``metrics_port`` only decides whether they are served)."""
    return [MetricsInterceptor()]
