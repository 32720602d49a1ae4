"""Load named SQL queries from the ``queries/*.sql`` files, once.

A file holds queries separated by ``-- name: <query_name>`` lines; the text up to the next such
line is the query. Parameters are psycopg named placeholders (``%(name)s``).

Whole-line ``--`` comments and layout whitespace (outside string literals) are dropped from the
text sent to the server: they document the files, and a shorter query stays under psycopg's
4 KiB limit for caching its parsed form (a query over it is re-parsed on every execution, which
was 8% of a worker's time).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

_NAME = re.compile(r"^--\s*name:\s*([a-z_][a-z0-9_]*)\s*$", re.MULTILINE)


def parse(text: str, source: str) -> dict[str, str]:
    """Split ``text`` into {name: query}; raise ValueError naming ``source`` on a duplicate."""
    out: dict[str, str] = {}
    matches = list(_NAME.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        name = m.group(1)
        if name in out:
            raise ValueError(f"{source}: query {name!r} is defined twice")
        body = "\n".join(line for line in text[m.end() : end].splitlines() if not line.lstrip().startswith("--"))
        out[name] = compact(body).rstrip(";")
    return out


def compact(sql: str) -> str:
    """Collapse indentation and runs of blanks outside string literals; keep line breaks.

    Line breaks stay so that an inline ``--`` comment still ends where it did, and adjacent
    string literals (which SQL joins only across a line break) stay adjacent.
    """
    parts = sql.split("'")  # even-numbered parts are outside literals ('' escapes keep parity)
    for i in range(0, len(parts), 2):
        parts[i] = _BLANK_LINES.sub("\n", _INDENT.sub("\n", _BLANKS.sub(" ", parts[i])))
    return "'".join(parts).strip()


_BLANKS = re.compile(r"[ \t]+")
_INDENT = re.compile(r"\n ")
_BLANK_LINES = re.compile(r"\n{2,}")


@cache
def queries(group: str) -> dict[str, str]:
    """Return the named queries of ``queries/<group>.sql``."""
    text = resources.files("queue_core").joinpath("queries", f"{group}.sql").read_text("utf-8")
    return parse(text, f"queue_core/queries/{group}.sql")


def q(group: str, name: str) -> str:
    """Return one named query; KeyError names the group and the query."""
    try:
        return queries(group)[name]
    except KeyError:
        raise KeyError(f"no query {name!r} in queue_core/queries/{group}.sql") from None
