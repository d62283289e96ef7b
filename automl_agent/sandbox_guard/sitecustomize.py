"""Loaded first in every sandboxed script: forbids network access beyond loopback and shell-outs.

An audit hook cannot be removed once installed, so code in the script cannot switch it off.
"""

import ipaddress
import sys

_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "", None}


def _is_loopback(host) -> bool:
    if isinstance(host, bytes):
        host = host.decode(errors="ignore")
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guard(event, args):
    if event in ("socket.connect", "socket.connect_ex", "socket.sendto"):
        address = args[1] if len(args) > 1 else None
        if isinstance(address, tuple) and not _is_loopback(address[0]):
            raise PermissionError(f"network access is not allowed in the training sandbox ({address[0]})")
    elif event == "socket.getaddrinfo":
        if not _is_loopback(args[0]):
            raise PermissionError(f"network access is not allowed in the training sandbox ({args[0]})")
    elif event in ("os.system", "os.posix_spawn", "os.exec"):
        raise PermissionError(f"{event} is not allowed in the training sandbox")


sys.addaudithook(_guard)
