"""An SSH server on a free loopback port for tests (asyncssh's server): a fresh host key, one user with a password.

Each command a client runs is run here with ``/bin/sh -c`` in the user's home directory (this
machine's), its output and exit status sent back; ``commands`` lists what was run, so a test can
tell that a shadow call never reached the host.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

USER, PASSWORD = "oracle", "oracle-pass"


@dataclass
class Served:
    """The running server: its port and every command it ran."""

    port: int
    commands: list[str] = field(default_factory=list)

    def url(self) -> str:
        """Return the ``ssh://`` login URL an ``ssh`` provider's ``dsn_env`` holds for this server."""
        return f"ssh://{USER}:{PASSWORD}@127.0.0.1:{self.port}?known_hosts=none"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving() -> Iterator[Served]:
    """Serve SSH until the block ends; yield the server."""
    import asyncssh

    class _Login(asyncssh.SSHServer):
        def begin_auth(self, username: str) -> bool:
            return True

        def password_auth_supported(self) -> bool:
            return True

        def validate_password(self, username: str, password: str) -> bool:
            return username == USER and password == PASSWORD

    served = Served(_free_port())

    async def command(process: Any) -> None:
        served.commands.append(process.command or "")
        shell = await asyncio.create_subprocess_exec("/bin/sh", "-c", process.command or "", cwd=str(Path.home()),
                                                     stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                                                     stderr=asyncio.subprocess.PIPE)
        out, err = await shell.communicate()
        process.stdout.write(out.decode("utf-8", "replace"))
        process.stderr.write(err.decode("utf-8", "replace"))
        process.exit(shell.returncode or 0)

    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: dict[str, Any] = {}

    async def start() -> None:
        holder["server"] = await asyncssh.create_server(
            _Login, "127.0.0.1", served.port, server_host_keys=[asyncssh.generate_private_key("ssh-ed25519")],
            process_factory=command, encoding="utf-8")
        ready.set()

    thread = threading.Thread(target=lambda: (loop.run_until_complete(start()), loop.run_forever()), daemon=True)
    thread.start()
    if not ready.wait(30):
        raise RuntimeError("the SSH server did not start")
    try:
        yield served
    finally:
        async def stop() -> None:
            holder["server"].close()
            await holder["server"].wait_closed()
        asyncio.run_coroutine_threadsafe(stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()
