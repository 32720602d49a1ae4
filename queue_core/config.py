"""Find the project, read and validate its ``[tool.cutover]`` table, resolve the database URL.

The project is the nearest ancestor of the working directory (itself included) whose
pyproject.toml has a ``[tool.cutover]`` table: where a recording set lives does not matter.

Every key of the table is checked against :data:`SCHEMA` when a command or ``pytest --shadow``
starts, before any work: an unknown key or a bad value stops with the file, the table and the
key (``pyproject.toml: [tool.cutover.gate] min_trigers: unknown key (did you mean
min_triggers?)``). Providers are checked by :mod:`queue_core.provider`'s own parser. A table with
a loader of its own (sources: :data:`queue_core.server.source.KEYS`, schedules:
:data:`queue_core.schedule.CONFIG_KEYS`) accepts exactly that loader's key list, so the two
cannot disagree; the checks here only add a value check for some of its keys. To add a key to
such a table, add it to the loader's list; the gate's keys are :data:`GATE_KEYS` (its parser
calls :func:`check_table`). A new sub-table is one more :class:`Table`.
"""

from __future__ import annotations

import logging
import os
import re
import tomllib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigError, ConfigKeyError
from .suggest import closest

Check = Callable[[Any], str | None]
"""Return what was expected when a value is wrong, None when it is fine."""


# -- checks -----------------------------------------------------------------------------------


def _integer(minimum: int, maximum: int | None = None) -> Check:
    def check(value: Any) -> str | None:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= minimum
        if maximum is None:
            return None if ok else f"an integer >= {minimum}"
        return None if ok and value <= maximum else f"an integer from {minimum} to {maximum}"
    return check


def _number(low: float, high: float, example: str) -> Check:
    def check(value: Any) -> str | None:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= high
        return None if ok else f"a number between {low:g} and {high:g} (e.g. {example})"
    return check


def _choice(*values: str) -> Check:
    def check(value: Any) -> str | None:
        return None if value in values else "one of " + ", ".join(repr(v) for v in values)
    return check


def _string(value: Any) -> str | None:
    return None if isinstance(value, str) and value.strip() else "a non-empty string"


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else "true or false"


def _checked_by_loader(value: Any) -> str | None:
    return None  # the loader checks it when the table is loaded


def _any_table(value: Any) -> str | None:
    return None if isinstance(value, dict) else "a table"


def _names(value: Any) -> str | None:
    ok = isinstance(value, list) and bool(value) and all(isinstance(v, str) and v for v in value)
    return None if ok else "a non-empty list of names"


_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _module(value: Any) -> str | None:
    return None if isinstance(value, str) and _MODULE.match(value) else 'a module name such as "automations"'


def _env_name(value: Any) -> str | None:
    ok = isinstance(value, str) and _ENV.match(value)
    return None if ok else "the NAME of an environment variable (never the secret itself)"


def _scheme(value: Any) -> str | None:
    from .server.verify import Scheme

    return _choice(*(s.value for s in Scheme))(value)


def _mode(value: Any) -> str | None:
    from .states import Mode

    return _choice(*(m.value for m in Mode))(value)


# -- the schema -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """What one sub-table may hold.

    ``keys`` are its scalar settings, ``tables`` its fixed sub-tables, ``each`` the schema of every
    user-named entry (``[tool.cutover.schedules.<name>]``) and ``parse`` a parser that checks
    the whole table itself (called with the table and the file; it raises ConfigError).
    ``loader_keys``, when set, returns the key list of the table's own loader (imported only when
    such a table is present): then the table accepts exactly those keys, ``keys`` adding value
    checks to some of them.
    """

    keys: Mapping[str, Check] = field(default_factory=dict)
    tables: Mapping[str, Table] = field(default_factory=dict)
    each: Table | None = None
    parse: Callable[[Any, str], object] | None = None
    loader_keys: Callable[[], Collection[str]] | None = None

    def accepted(self) -> dict[str, Check]:
        """Return every scalar key this table accepts, with its value check."""
        if self.loader_keys is None:
            return dict(self.keys)
        return {name: self.keys.get(name, _checked_by_loader) for name in self.loader_keys()}


GATE_KEYS: dict[str, Check] = {
    "min_triggers": _integer(0),
    "agreement": _number(0, 1, "0.995"),
    "branch_min": _integer(0),
    "max_side_effect_mismatches": _integer(0),
    "evidence": _choice("status", "path", "decisions", "calls", "outputs"),
    "branch_coverage": _choice("legacy", "definition"),
    "min_mutation_score": _number(0, 1, "0.8"),
}

SOURCE_CHECKS: dict[str, Check] = {
    "scheme": _scheme,
    "secret_env": _env_name,
    "automations": _names,
    "delivery_id_header": _string,
    "tolerance_s": _integer(1),
    "max_body_bytes": _integer(1),
    "mode": _mode,
    "replay_window_s": _integer(0, 366 * 24 * 3600),  # seconds; 0 turns it off
    "respond_timeout_s": _integer(0, 300),  # seconds a request is held for the automation's answer; 0: at once
}
"""Value checks of source keys; the keys themselves are :data:`queue_core.server.source.KEYS`."""

SCHEDULE_CHECKS: dict[str, Check] = {
    "automation": _string,
    "cron": _string,
    "timezone": _string,
    "catch_up": _choice("latest", "all", "none"),
    "catch_up_max": _integer(1),
    "paused": _boolean,
    "payload": _any_table,
}
"""Value checks of schedule keys; the keys themselves are :data:`queue_core.schedule.CONFIG_KEYS`."""


def _source_keys() -> Collection[str]:
    from .server.source import KEYS  # the server package is heavy: imported only for a sources table

    return KEYS


def _schedule_keys() -> Collection[str]:
    from .schedule import CONFIG_KEYS

    return CONFIG_KEYS


def _providers(table: Any, source: str) -> object:
    from .provider import parse_providers

    return parse_providers(table, source=source)


SCHEMA = Table(
    keys={"automations": _module},
    tables={
        "gate": Table(keys=GATE_KEYS, tables={"automations": Table(each=Table(keys=GATE_KEYS))}),
        "providers": Table(parse=_providers),
        "sources": Table(each=Table(keys=SOURCE_CHECKS, loader_keys=_source_keys)),
        "schedules": Table(each=Table(keys=SCHEDULE_CHECKS, loader_keys=_schedule_keys)),
    },
)


def _unknown(source: str, prefix: str, key: str, known: list[str]) -> ConfigKeyError:
    close = closest(key, known)
    hint = f"did you mean {close}?" if close else "expected one of " + ", ".join(sorted(known))
    return ConfigKeyError(source, prefix, key, f"unknown key ({hint})")


def check_table(table: Any, schema: Table, prefix: str, source: str) -> None:
    """Check ``table`` (the TOML table at dotted ``prefix``) against ``schema``.

    Raises ConfigKeyError naming ``source``, the table and the key at fault, or the ConfigError
    of a delegated parser. Pure: reads nothing but its arguments.
    """
    if schema.parse is not None:
        _delegate(schema.parse, table, prefix, source)
        return
    if not isinstance(table, dict):
        head, _, last = prefix.rpartition(".")
        raise ConfigKeyError(source, head, last, "expected a table")
    keys = schema.accepted() if table else {}
    for key, value in table.items():
        if schema.each is not None:
            check_table(value, schema.each, f"{prefix}.{key}", source)
        elif key in schema.tables:
            check_table(value, schema.tables[key], f"{prefix}.{key}", source)
        elif key in keys:
            expected = keys[key](value)
            if expected is not None:
                raise ConfigKeyError(source, prefix, key, f"expected {expected}, got {value!r}")
        else:
            raise _unknown(source, prefix, key, [*keys, *schema.tables])


def _delegate(parse: Callable[[Any, str], object], table: Any, prefix: str, source: str) -> None:
    """Run a sub-table's own parser; restate its ConfigError as file, table and key."""
    try:
        parse(table, source)
    except ConfigKeyError:
        raise
    except ConfigError as exc:
        dotted = exc.field or prefix
        stated = f"{exc.source}, field {dotted!r}: " if exc.source else f"field {dotted!r}: "
        reason = str(exc).removeprefix(stated)
        head, _, last = dotted.rpartition(".")
        # A key like rate[0] sits after the last dot; a provider's name may hold dots, so the
        # split is only cosmetic: the dotted field is kept whole on .field.
        error = ConfigKeyError(exc.source or source, head or prefix, last, reason)
        error.field = dotted
        raise error from None


def validate(table: Any, source: str = "pyproject.toml") -> None:
    """Check the whole ``[tool.cutover]`` table; raise ConfigKeyError (a ConfigError) on the first fault."""
    check_table(table, SCHEMA, "tool.cutover", source)


# -- finding and loading the project ----------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """The project's cutover settings; ``raw`` keeps the whole table for other sections."""

    root: Path
    automations: str = "automations"
    raw: dict[str, Any] = field(default_factory=dict)
    pyproject: Path | None = None


def shown(path: Path) -> str:
    """Return ``path`` as messages show it: relative to the working directory when under it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


# -- the one reader of pyproject.toml ----------------------------------------------------------

_TOML_LINE = re.compile(r"\(at line (\d+), column \d+\)")


def _parse(path: Path) -> dict[str, Any]:
    """Return the TOML document of ``path``; raise ConfigError naming the file (and the line)."""
    source = shown(path)
    try:
        return tomllib.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError("file not found", source=source) from None
    except OSError as exc:
        raise ConfigError(f"cannot be read: {exc.strerror}", source=source) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text (byte {exc.start})", source=source) from None
    except tomllib.TOMLDecodeError as exc:
        # Python 3.14's TOMLDecodeError has lineno; earlier ones say the line only in the message.
        found = _TOML_LINE.search(str(exc))
        line = getattr(exc, "lineno", None) or (int(found.group(1)) if found else None)
        raise ConfigError(f"not valid TOML: {exc}", source=source, line=line) from None


def _descend(table: dict[str, Any], keys: tuple[str, ...], source: str) -> dict[str, Any] | None:
    """Return the sub-table of ``table`` at ``keys`` (None where one is absent); raise
    ConfigError naming ``source`` and the dotted key path where a value is not a table."""
    for depth, key in enumerate(keys):
        if key not in table:
            return None
        value = table[key]
        if not isinstance(value, dict):
            reason = f"expected a table, got {type(value).__name__} {value!r}"
            if depth == 0:  # a top-level key has no table to name: [] tool would say nothing
                raise ConfigError(reason, source=source, field=key)
            raise ConfigKeyError(source, ".".join(keys[:depth]), key, reason)
        table = value
    return table


def read_table(path: Path | None, *keys: str) -> dict[str, Any]:
    """Return the ``[tool.cutover]`` table of the pyproject.toml at ``path``, or its sub-table
    at ``keys`` (``read_table(p, "gate")`` is ``[tool.cutover.gate]``); ``{}`` where the table
    is absent, or when ``path`` is None (no project: every setting has its default).

    The one reader of pyproject.toml, with one error policy: a file that is missing, unreadable,
    not UTF-8 or not valid TOML raises ConfigError naming the file (``source``; for a TOML
    syntax error also ``line``, as tomllib gives it), and a value on the way that is not a
    table raises ConfigError naming the file and the dotted key path (``field``, such as
    ``tool.cutover.gate``). It checks no key inside the table: :func:`validate` does.
    """
    if path is None:
        return {}
    table = _descend(_parse(path), ("tool", "cutover", *keys), shown(path))
    return {} if table is None else table


def project_table(*keys: str, start: Path | None = None) -> dict[str, Any]:
    """Return :func:`read_table` of the project found from ``start`` (see :func:`find_project`)."""
    return read_table(find_project(start), *keys)


def find_project(start: Path | None = None) -> Path | None:
    """Return the pyproject.toml of the project: the nearest one at or above ``start`` (default:
    the working directory) that has a ``[tool.cutover]`` table, else None.

    Raises :func:`read_table`'s ConfigError for a malformed pyproject.toml on the way.
    """
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and _descend(_parse(candidate), ("tool", "cutover"), shown(candidate)) is not None:
            return candidate
    return None


def find_pyproject(start: Path | None = None) -> Path | None:
    """Return the project's pyproject.toml (see :func:`find_project`)."""
    return find_project(start)


def load(path: Path | None = None) -> Settings:
    """Load and validate the settings of ``path`` or of the project found from the working
    directory; defaults rooted at the working directory when there is none.

    Raises ConfigError naming the file (and the line, for TOML syntax errors) and the key.
    """
    path = path or find_project()
    if path is None:
        return Settings(root=Path.cwd())
    table = read_table(path)
    validate(table, shown(path))
    return Settings(root=path.parent, automations=table.get("automations", "automations"), raw=table,
                    pyproject=path)


DATABASE_LOG = "cutover.database"
"""The logger :func:`database_url` names the database on when it is not the configured one."""


def database_url() -> str:
    """Return the URL the CLI should use: DATABASE_URL, else a ``cutover`` database on a
    provisioned server (testcontainers or embedded), created on first use.

    DATABASE_URL is connected to once first (a few seconds at most): DatabaseUnreachableError
    names its host, port and database and the server's reason. A bad CUTOVER_PREPARE_THRESHOLD
    raises ConfigError naming it. Without it, the database used
    is logged as a warning on :data:`DATABASE_LOG` (the CLI prints it on stderr), since a
    provisioned server is not where a user's jobs are.
    """
    from . import db

    db.prepare_threshold()  # every pool reads it: a bad value stops the command here, named
    url = os.environ.get("DATABASE_URL")
    if url:
        db.check_reachable(url)
        return url
    from . import provision

    srv = provision.server()
    url = provision.ensure_database(srv, "cutover")
    logging.getLogger(DATABASE_LOG).warning(
        "DATABASE_URL is not set; using the %s server's database %s", srv.source, db.where(url))
    return url


LISTEN_ENV = "CUTOVER_LISTEN_URL"
"""Environment variable: the database URL a worker LISTENs on, ``off`` to poll only."""


def listen_url(database_url: str, env: Mapping[str, str] | None = None) -> str | None:
    """Return the URL a worker's listener connects to for NOTIFY, or None to poll only.

    :data:`LISTEN_ENV` in ``env`` (default: the process environment) when set: a direct URL to
    the server where DATABASE_URL goes through a pooler (PgBouncer in transaction mode hands
    each transaction a server connection of its pool, so a LISTEN there never hears a
    NOTIFY), or ``off``, and the worker claims every ``--poll`` seconds. Unset:
    ``database_url``, a server connection of its own. The URL is connected to once first:
    DatabaseUnreachableError names it (origin CUTOVER_LISTEN_URL), never its password.
    """
    from . import db

    raw = (os.environ if env is None else env).get(LISTEN_ENV, "").strip()
    if not raw:
        return database_url
    if raw.lower() == "off":
        return None
    db.check_reachable(raw, origin=LISTEN_ENV)
    return raw


def project_registry(settings: Settings) -> Any:
    """Import the project's automations module (its root on ``sys.path``) and return the registry.

    Raises ConfigError naming the module; when no pyproject.toml with ``[tool.cutover]`` was found,
    the error says so instead of blaming a file that does not exist.
    """
    import sys

    from .registry import discover

    if str(settings.root) not in sys.path:
        sys.path.insert(0, str(settings.root))
    try:
        return discover(settings.automations)
    except ConfigError as exc:
        if settings.pyproject is not None:
            raise
        raise ConfigError(
            f"no project here: no pyproject.toml with a [tool.cutover] table at or above {Path.cwd()}, "
            f"and the default automations module {settings.automations!r} cannot be imported "
            f"({exc.__cause__}); run cutover in your project, or create pyproject.toml with "
            '[tool.cutover] automations = "<your module>"') from exc
