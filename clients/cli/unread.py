"""The flags ``clients infer`` and ``clients check`` would pass over in a run, refused (issue 26, K1:
"a flag accepted and ignored"), each command's cases listed once for :func:`core.flag_refusals.refuse_unread`."""

from __future__ import annotations

from pathlib import Path

import click

from clients.runtimes.base import TRITON_DEFAULT_PORTS
from clients.runtimes.choose import RUNTIME_FIELDS
from clients.runtimes.options import ServerOptions
from clients.runtimes.remote import RemoteRuntime
from core.flag_refusals import Unread, refuse_unread
from core.flag_words import flag_name
from core.options import given, given_fields
from core.wording import agree

#: The port a protocol's server listens on by default (Triton's layout: clients.runtimes.base.TRITON_DEFAULT_PORTS).
DEFAULT_PORTS = {"http": TRITON_DEFAULT_PORTS.http, "grpc": TRITON_DEFAULT_PORTS.grpc}


def refuse_unread_infer(protocol: str, scheme: str | None, input_path: Path | None, requests: int, concurrency: int) -> None:
    """Refuse the flags ``clients infer`` would pass over in this run (issue 26, K1): ``--protocol`` beside a
    ``--url`` whose scheme names the other one, ``--seed``, ``--shape`` and ``--no-cast`` beside generated or given inputs
    where they do nothing, ``--concurrency`` above ``--requests`` (one :func:`core.flag_refusals.refuse_unread`)."""
    refuse_unread(
        given(click.get_current_context()),
        [
            Unread(
                "protocol",
                "--protocol",
                scheme in DEFAULT_PORTS and scheme != protocol,
                f"--url {scheme}://... sets the protocol ({scheme}), not --protocol {protocol}",
                f"drop --protocol, or write --url {protocol}://HOST:PORT (or HOST:PORT) to send over {protocol}",
            ),
            Unread(
                "seed",
                "--seed",
                input_path is not None,
                f"--input-data {input_path} gives the inputs; only generated inputs are seeded",
                "drop --seed, or drop --input-data to send generated inputs",
            ),
            Unread(
                "shapes",
                "--shape",
                input_path is not None,
                f"--input-data {input_path} gives the inputs themselves; --shape sizes generated ones",
                "drop --shape, or drop --input-data to send generated inputs of that size",
            ),
            Unread(
                "no_cast",
                "--no-cast",
                input_path is None,
                "generated inputs have the model's own dtypes, so there is nothing to cast",
                "drop --no-cast, or give --input-data FILE whose dtypes are to be held to the model's",
            ),
            Unread(
                "concurrency",
                "--concurrency",
                concurrency > requests,
                f"--requests {requests} puts at most {requests} in flight, not {concurrency}",
                f"raise --requests to {concurrency} or more, or lower --concurrency to {requests}",
            ),
        ],
    )


def refuse_unread_check(protocol: str, http_url: str | None, grpc_url: str | None) -> None:
    """Refuse ``clients check --http-url``/``--grpc-url`` of a protocol ``--protocol`` does not check, where the
    other URL is given too: the checked protocol's own URL is used and this one is not (issue 26, K1; without
    the other URL it is read, the checked protocol's endpoint derived from it)."""
    refuse_unread(
        given(click.get_current_context()),
        [
            Unread(
                name + "_url",
                f"--{name}-url",
                protocol == other and typed_url is not None and own is not None,
                f"--protocol {other} checks over {other} only, at --{other}-url {own}",
                f"drop --{name}-url, or pass --protocol both to check over {name} too",
            )
            for name, other, typed_url, own in (("http", "grpc", http_url, grpc_url), ("grpc", "http", grpc_url, http_url))
        ],
    )


def refuse_unread_running(running: str, address: str) -> None:
    """Refuse the server flags typed beside ``running`` (``--http-url``/``--grpc-url``) at ``address``, with which
    ``clients check`` checks a server that runs: they were shown in its help and ignored (``--runtime``,
    ``--http-port``, ...); by the one rule of unread flags (:func:`core.flag_refusals.refuse_unread`), ``-r`` aside
    (the repository the outputs are checked against), and ``--start-timeout`` (how long a load it asks for may wait). Each is said with what it sets up and a way to have it read
    that check takes (break-it F2: ``--metrics-url`` "sets up the server it starts", which it never does: it is for a
    server at ``--url``, and dropping ``--http-url`` alone was refused next): a started server's flags, one runtime's
    (``--tag``: ``--runtime container``), a server at ``--url``'s (``--metrics-url``: ``--url`` in place of ``running``)."""
    typed = sorted(given_fields(ServerOptions, click.get_current_context()) - {"repository", "start_timeout_s"})
    by_reader: dict[str | None, list[str]] = {}
    for f in typed:
        by_reader.setdefault(RemoteRuntime.name if f == "urls" else RUNTIME_FIELDS.get(f), []).append(f)
    cases = []
    for reader, names in by_reader.items():
        flags = " and ".join(flag_name(ServerOptions, f) for f in names)
        sets = agree(len(names), "it sets", "they set")
        why, instead = (
            f"{sets} up the server it starts otherwise",
            f"drop {flags}, or drop {running} to have check start a server",
        )
        if reader == RemoteRuntime.name:
            why = f"{agree(len(names), 'it is', 'they are')} for a server at --url, which check reaches otherwise"
            instead = (
                f"drop {flags}, or drop {running} to check the server at --url"
                if "urls" in names
                else f"drop {flags}, or pass --url {address} in place of {running} to check that server with "
                + agree(len(names), "it", "them")
            )
        elif reader is not None:
            why = f"{sets} up the server it starts otherwise with --runtime {reader}"
            instead = f"drop {flags}, or drop {running} and pass --runtime {reader} to have check start that server"
        cases += [
            Unread(f, flag_name(ServerOptions, f), True, f"{running} names the running server check checks; {why}", instead)
            for f in names
        ]
    refuse_unread(typed, cases)
