"""What a request the server refused becomes: one :class:`~core.errors.ClientError` in the toolkit's words."""

from __future__ import annotations

import numpy as np

from builders.model.lookups.probe import TORCH_INDEX_ERRORS
from core.errors import ClientError

#: gRPC's default message limit is 4 MiB; responses of large tensors need more.
GRPC_MAX_MESSAGE_BYTES = 1 << 30

#: How runtimes say an integer input indexed past a table, in lower case: torch's (``nn.Embedding``: "index out
#: of range in self"; ``nn.EmbeddingBag``: "Index 0 of input takes value 1275 which is not in the valid range
#: [0, 1000)", "Expected i < index_size"), ONNX Runtime's Gather ("indices element out of data bounds").
INDEX_PAST_TABLE = (*TORCH_INDEX_ERRORS, "out of data bounds")
#: What such a refusal is, in the toolkit's words: every command that prints a server's refusal says it so.
PAST_TABLE = "an integer input holds an index past a table the model indexes (an embedding's num_embeddings)"


def past_table_line(message: str) -> str | None:
    """The server's own words saying an integer input indexed past a table (:data:`INDEX_PAST_TABLE`): the
    last line (or ``"; "``-joined part) of ``message`` that says it, e.g. the last line of a 49-line
    TorchScript traceback (trial 23, T23-12); ``None`` when ``message`` says no such thing."""
    parts = [p.strip() for ln in message.strip().splitlines() for p in ln.split("; ") if p.strip()]
    said = [p for p in parts if any(s in p.lower() for s in INDEX_PAST_TABLE)]
    return said[-1][:300] if said else None


def refusal(model: str, message: str, inputs: dict[str, np.ndarray], log: str) -> ClientError:
    """The error for a request the server refused (``log``: where that server's log is, in words:
    :func:`clients.runtimes.host.log_where`): its message, or, for an integer value past a
    table the model indexes (:func:`past_table_line`: torch's words under a TorchScript
    traceback, ONNX Runtime's Gather), one line naming the integer inputs' values sent and what
    to send instead (``clients infer`` and ``clients check`` both say it so)."""
    last = past_table_line(message)
    if last is None:
        return ClientError(
            f"{model}: request refused: {message}",
            hint=_hint(message)
            or "the server's words above say which input or setting it refused; without --input-data, "
            f"`clients infer` sends inputs the build verified; for the rest, {log}",
        )
    sent = "; ".join(
        f"{k!r} {int(v.min())}..{int(v.max())}" for k, v in inputs.items() if np.issubdtype(v.dtype, np.integer) and v.size
    )
    return ClientError(
        f"{model}: request refused: {PAST_TABLE}: integer inputs sent: {sent or 'none'} (the server: {last})",
        hint="send values the model accepts (token ids 0..num_embeddings-1); the build's value_range of each input, which "
        "its verification used, is what `clients infer -r REPOSITORY` draws from without --input-data",
    )


def _hint(message: str) -> str | None:
    m = message.lower()
    if "received message larger than max" in m or "resource_exhausted" in m:
        return f"the response exceeds the gRPC message limit; make_client raises it to {GRPC_MAX_MESSAGE_BYTES} bytes, use HTTP or smaller batches"
    return None
