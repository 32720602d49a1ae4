"""A loopback SMTP server for tests: it accepts every message and keeps what it received.

It speaks enough of RFC 5321 for a client that does not authenticate or upgrade (EHLO/HELO,
MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP, QUIT), advertises no extension but 8BITMIME and
SMTPUTF8, and refuses a recipient whose address starts with ``refuse`` (550), so a test can see a
rejected recipient. ``serving()`` yields the server; ``server.received`` holds one
:class:`Received` per message (envelope sender, recipients, the message bytes).
"""

from __future__ import annotations

import re
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

REPLY = b"250 OK: message accepted"


@dataclass
class Received:
    """One message as the server got it."""

    sender: str
    recipients: list[str]
    data: bytes = b""


@dataclass
class _Session:
    sender: str = ""
    recipients: list[str] = field(default_factory=list)


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def _say(self, line: bytes) -> None:
        self.wfile.write(line + b"\r\n")
        self.wfile.flush()

    def handle(self) -> None:
        self._say(b"220 loopback ESMTP ready")
        session = _Session()
        while line := self.rfile.readline():
            verb = line[:4].upper()
            if verb in (b"EHLO",):
                self._say(b"250-loopback\r\n250-8BITMIME\r\n250 SMTPUTF8")
            elif verb == b"HELO":
                self._say(b"250 loopback")
            elif verb == b"MAIL":
                session = _Session(sender=_address(line))
                self._say(b"250 OK")
            elif verb == b"RCPT":
                address = _address(line)
                if address.startswith("refuse"):
                    self._say(b"550 no such mailbox")
                else:
                    session.recipients.append(address)
                    self._say(b"250 OK")
            elif verb == b"DATA":
                self._say(b"354 end with <CRLF>.<CRLF>")
                self.server.received.append(Received(session.sender, session.recipients, self._data()))
                self._say(REPLY)
            elif verb == b"QUIT":
                self._say(b"221 bye")
                return
            elif verb in (b"RSET", b"NOOP"):
                self._say(b"250 OK")
            else:
                self._say(b"502 not implemented")

    def _data(self) -> bytes:
        lines = []
        while (line := self.rfile.readline()) not in (b".\r\n", b".\n", b""):
            lines.append(line[1:] if line.startswith(b"..") else line)
        return b"".join(lines)


def _address(line: bytes) -> str:
    found = re.search(rb"<([^>]*)>", line)
    return (found.group(1) if found else line.split(b":", 1)[-1].strip()).decode()


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.received: list[Received] = []


@contextmanager
def serving(port: int = 0) -> Iterator[_Server]:
    """Serve SMTP on loopback for the block (``port`` 0: a free one); yield the server."""
    server = _Server(port)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
