"""The address phones use to join, and its QR code.

Phones are given the address by IP: Android phones cannot resolve ``.local``
names. The LAN address is the one the machine would use to reach the outside
(no packet is sent to find it out), else any non-loopback address of the
host, else loopback.
"""
from __future__ import annotations

import ipaddress
import socket
from typing import TextIO


def lan_ip() -> str:
    """This machine's address on the local network, by IP ("192.168.1.20"); 127.0.0.1 if it has none."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            # connect() on UDP only picks the route; nothing is sent. TEST-NET-1 needs no internet.
            probe.connect(("192.0.2.1", 9))
            address = probe.getsockname()[0]
            if not ipaddress.ip_address(address).is_loopback:
                return address
    except OSError:
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            address = info[4][0]
            if not ipaddress.ip_address(address).is_loopback:
                return address
    except OSError:
        pass
    return "127.0.0.1"


def service_url(host: str, port: int, public_url: str = "") -> str:
    """The address to print and encode: `public_url` if set, else http://<ip>:<port> for the bound host."""
    if public_url:
        return public_url.rstrip("/")
    if host in ("0.0.0.0", "", "::"):
        host = lan_ip()
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 literal in a URL
    return f"http://{host}:{port}"


def qr_svg(url: str, scale: int = 4) -> str:
    """An inline SVG QR code of `url`, dark on white so it scans on a dark page too."""
    import segno

    return segno.make(url, micro=False, error="m").svg_inline(
        scale=scale, border=2, dark="#000", light="#fff", title=f"QR code for {url}",
        svgclass="qr", lineclass=None, omitsize=True)  # a viewBox only: the page sizes it


def print_qr(url: str, out: TextIO) -> None:
    """The QR code of `url` drawn in the terminal with block characters."""
    import segno

    segno.make(url, micro=False, error="m").terminal(out=out, compact=True)
