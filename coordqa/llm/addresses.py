"""Which addresses a board may call: checked on every new connection, and connected to as checked.

A board calls endpoints that anyone registers. A check of the host name at registration is not
enough: the name may resolve elsewhere when the worker calls it (DNS rebinding), and any second
lookup between a check and a connection may differ again. So the check is made where connections
are made: the network backends of :mod:`coordqa.llm.http` resolve the host themselves
(:func:`resolve`), refuse it unless every address it resolves to may be called
(:meth:`AddressGuard.checked`, :func:`refused_address`), and connect to the address they
checked. TLS is unchanged: httpcore names the URL's host in SNI and certificate checks, and
the Host header comes from the URL, so an https endpoint works as it would without the guard.

The board's worker runs each job inside :func:`guarded_endpoints`: while it is active, every
connection coordqa makes to a model endpoint (the direct transport's calls, the probe before a
run, the listing of served models) goes through the guard, no proxy settings are read, and a
model with an ``api_base`` can only be reached through the direct transport
(:func:`coordqa.llm.registry.create_provider`), since litellm's connections cannot be guarded.
``allow_private=True`` (a board started with ``--allow-private-endpoints``, the one switch) lets
every address through and keeps the rest.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = [
    "AddressGuard",
    "AddressRefused",
    "active_guard",
    "guarded_endpoints",
    "refused_address",
    "resolve",
]


class AddressRefused(Exception):
    """A connection to an address the board may not call (loopback, private, link-local...)."""


_NAT64 = ipaddress.ip_network("64:ff9b::/96")
"""The well-known NAT64 prefix: its last 32 bits are an IPv4 address reached through it."""


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address leads to (mapped, 6to4, Teredo, NAT64)."""
    inner = [address.ipv4_mapped, address.sixtofour]
    if address.teredo is not None:
        inner += list(address.teredo)
    if address in _NAT64:
        inner.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return [each for each in inner if each is not None]


def refused_address(address: str) -> bool:
    """Whether a public board must not call ``address`` (an IP address in text).

    Refused: every address that is not global (loopback, private, link-local such as
    169.254.169.254, shared 100.64/10, unspecified, reserved), multicast, and an IPv6 address
    that leads to a refused IPv4 one (``::ffff:127.0.0.1``, 6to4, Teredo, NAT64).

    >>> [refused_address(a) for a in ("8.8.8.8", "127.0.0.1", "169.254.169.254", "::1")]
    [False, True, True, True]
    >>> refused_address("::ffff:127.0.0.1"), refused_address("64:ff9b::7f00:1")
    (True, True)
    """
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # a link-local scope: fe80::1%eth0
    if not ip.is_global or ip.is_multicast:
        return True
    if isinstance(ip, ipaddress.IPv6Address):
        return any(refused_address(str(inner)) for inner in _embedded_ipv4(ip))
    return False


def resolve(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to now, in the resolver's order (each once).

    The one lookup a guarded connection makes; tests replace it to play a name that resolves
    elsewhere at call time.

    Raises:
        OSError: the name does not resolve.
    """
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in found))


@dataclass(frozen=True)
class AddressGuard:
    """What a guarded connection may reach."""

    allow_private: bool = False
    """Whether loopback and private addresses may be called (a board on a laptop, tests)."""

    def checked(self, host: str, port: int) -> list[str]:
        """The addresses of ``host`` to connect to, each checked.

        Raises:
            AddressRefused: ``host`` resolves to an address the board may not call (all are
                refused when one is: a name with one inner address is not a public endpoint).
            OSError: ``host`` does not resolve.
        """
        addresses = resolve(host, port)
        if not addresses:
            raise OSError(f"{host} resolves to no address")
        if not self.allow_private:
            inner = [address for address in addresses if refused_address(address)]
            if inner:
                raise AddressRefused(
                    f"{host} resolves to {', '.join(inner)}, a loopback or private address; "
                    "this board calls only public addresses"
                )
        return addresses


_active: AddressGuard | None = None
_active_lock = threading.Lock()


def active_guard() -> AddressGuard | None:
    """The guard every endpoint connection of this process goes through now (None: none)."""
    with _active_lock:
        return _active


@contextmanager
def guarded_endpoints(*, allow_private: bool) -> Iterator[AddressGuard]:
    """Guard every connection to a model endpoint made in this process within the block.

    Process-wide rather than passed along, so that no path of a job (QA or agentic, in any
    thread) can reach an endpoint unguarded; the board's worker runs one job at a time.
    """
    global _active
    guard = AddressGuard(allow_private=allow_private)
    with _active_lock:
        before, _active = _active, guard
    try:
        yield guard
    finally:
        with _active_lock:
            _active = before
