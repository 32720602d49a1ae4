"""The SSH transport: an ``ssh`` provider's calls run a command on a remote host (asyncssh).

A provider with ``kind = "ssh"`` (``base_url`` ``ssh://<name>``) names in ``dsn_env`` the env var
that holds where and how to log in::

    ssh://user[:password]@host[:port][?key_env=NAME][&passphrase_env=NAME][&known_hosts=PATH|none]

``key_env`` names another env var holding the private key's text (n8n's "SSH Private Key"
credential), ``passphrase_env`` its passphrase; ``known_hosts`` is the file the host key is checked
against (by default ``~/.ssh/known_hosts``; ``none`` checks nothing: only for a host on a network
you trust). It is called like any other provider: ``ctx.call(provider, "SSH", "/command",
json={"command": text, "cwd": dir})`` goes through budgets, the ledger, redaction and the modes.
Only a live call reaches this transport (mounted on the gateway's live client for the
provider's ``ssh://`` origin); shadow and dry-run calls are answered offline, so nothing of
those modes ever connects to the host or runs a command there.

What it runs is what n8n's SSH node (``node-ssh``'s ``execCommand``) runs: ``cd <cwd> ; <command>``
with the directory shell-quoted as ``shell-escape`` quotes it, a ``cwd`` starting ``~/`` first
resolved against the remote ``$HOME`` (``echo $HOME``). The answer (200) is ``{"code": exit status
or null, "signal": name or null, "stdout", "stderr"}`` untrimmed. A host that cannot be reached,
or refuses the login, raises ``httpx.ConnectError`` naming the provider, never the URL (it may
hold a password); a command running past the provider's ``timeout`` raises ``httpx.ReadTimeout``.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import httpx

from ..errors import ConfigError
from ..provider import ProviderConfig, ProviderKind

SSH_HEADER = "X-Cutover-Ssh"
_PLAIN = re.compile(r"^[A-Za-z0-9_/-]+$")


def mounts(providers: Mapping[str, ProviderConfig], environ: Mapping[str, str]) -> dict[str, httpx.AsyncBaseTransport]:
    """Return the transports to mount on the live client: one per SSH provider, on its ``ssh://`` origin."""
    return {config.base_url: SshTransport(config, environ) for config in providers.values()
            if config.kind is ProviderKind.SSH}


def shell_quote(word: str) -> str:
    """Quote ``word`` as the npm package ``shell-escape`` does (node-ssh quotes a cwd with it)."""
    if _PLAIN.match(word):
        return word
    quoted = "'" + word.replace("'", "'\\''") + "'"
    return re.sub(r"^(?:'')+", "", quoted).replace("\\'''", "\\'")


def login(config: ProviderConfig, environ: Mapping[str, str]) -> dict[str, Any]:
    """Return asyncssh's connect options from the provider's ``dsn_env`` URL (see the module docstring)."""
    field = f"tool.cutover.providers.{config.name}.dsn_env"
    url = environ.get(config.dsn_env or "")
    if not url:
        raise ConfigError(f"environment variable {config.dsn_env} is not set (provider {config.name!r})",
                          source="environment", field=field)
    parts = urlsplit(url)
    if parts.scheme != "ssh" or not parts.hostname or not parts.username:
        raise ConfigError(f"environment variable {config.dsn_env} must be ssh://user@host[:port] (provider {config.name!r})",
                          source="environment", field=field)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    options: dict[str, Any] = {"host": parts.hostname, "port": parts.port or 22, "username": unquote(parts.username),
                               "connect_timeout": config.timeout}
    if parts.password is not None:
        options["password"] = unquote(parts.password)
    if "key_env" in query:
        import asyncssh

        key = environ.get(query["key_env"])
        if not key:
            raise ConfigError(f"environment variable {query['key_env']} (the key_env of {config.dsn_env}) is not set",
                              source="environment", field=field)
        passphrase = environ.get(query.get("passphrase_env", "")) or None
        options["client_keys"] = [asyncssh.import_private_key(key, passphrase)]
    if "known_hosts" in query:
        options["known_hosts"] = None if query["known_hosts"] == "none" else query["known_hosts"]
    return options


async def run_remote(options: dict[str, Any], command: str, cwd: str | None, timeout: float) -> dict[str, Any]:
    """Log in, run ``command`` as node-ssh's ``execCommand`` does in ``cwd``; return code, signal, stdout, stderr."""
    import asyncssh

    async with asyncssh.connect(**options) as conn:
        if cwd and cwd.startswith("~/"):
            home = (await conn.run("echo $HOME", check=False)).stdout
            home = str(home or "").strip()
            cwd = cwd.replace("~/", home if home.endswith("/") else home + "/", 1)
        full = f"cd {shell_quote(cwd)} ; {command}" if cwd else command
        done = await asyncio.wait_for(conn.run(full, check=False), timeout)
    signal = done.exit_signal[0] if done.exit_signal else None
    return {"code": None if signal else done.exit_status, "signal": signal,
            "stdout": str(done.stdout or ""), "stderr": str(done.stderr or "")}


class SshTransport(httpx.AsyncBaseTransport):
    """Run an SSH provider's calls on its host (one connection per call, closed after it)."""

    def __init__(self, config: ProviderConfig, environ: Mapping[str, str]) -> None:
        self._config, self._environ = config, environ

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            body = json.loads(await request.aread() or b"null")
        except ValueError:
            body = None
        if request.url.path != "/command" or not isinstance(body, dict) or not isinstance(body.get("command"), str):
            raise ConfigError(f"provider {self._config.name!r} is an SSH host: call it with 'SSH', '/command', "
                              "json={'command': …, 'cwd': …}", field=f"tool.cutover.providers.{self._config.name}")
        try:
            import asyncssh
        except ImportError:  # an optional dependency: the ssh extra
            raise ConfigError(f"provider {self._config.name!r} is an SSH host: install asyncssh (pip install "
                              "'cutover[ssh]')", field=f"tool.cutover.providers.{self._config.name}") from None
        options = login(self._config, self._environ)
        cwd = body.get("cwd") if isinstance(body.get("cwd"), str) else None
        try:
            answer = await run_remote(options, body["command"], cwd, self._config.timeout)
        except TimeoutError:
            raise httpx.ReadTimeout(f"the command on SSH provider {self._config.name!r} ran past its timeout",
                                    request=request) from None
        except (OSError, asyncssh.Error):  # its text may name the host and user: the provider's name is enough
            raise httpx.ConnectError(f"could not run the command on SSH provider {self._config.name!r}",
                                     request=request) from None
        return httpx.Response(200, json=answer, headers={SSH_HEADER: "command"}, request=request)
