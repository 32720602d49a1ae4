"""Read the definition a scaffold command was given, and name it when it belongs to another command or platform.

``cutover scaffold n8n`` reads n8n workflows, ``cutover scaffold make`` Make blueprints, and
``probe-triggers`` n8n definitions. Given another platform's definition, each says what the file
is and which command reads it, using the importer's recognisers (``harness.importer.definition``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.errors import ExportFormatError
from harness.importer.definition import DefinitionKind, recognise

READS = {DefinitionKind.N8N_WORKFLOW: "n8n", DefinitionKind.MAKE_BLUEPRINT: "make"}


def foreign_kind(document: Any, wanted: DefinitionKind) -> DefinitionKind | None:
    """Return the kind of definition ``document`` is when it is one and not ``wanted``, else None."""
    kind = recognise(document)
    return None if kind is None or kind is wanted else kind


def describe(kind: DefinitionKind) -> str:
    """Return ``kind`` with its article, e.g. ``a Make scenario blueprint``."""
    article = "an" if kind.value[0].lower() in "aeiou" or kind.value.startswith("n8n") else "a"
    return f"{article} {kind.value}"


def refuse_foreign(document: Any, path: str, wanted: DefinitionKind) -> None:
    """Raise ExportFormatError when ``document`` is a definition other than ``wanted``.

    The message names what the file is and the scaffold command that reads it, or says that
    scaffold reads no such definition (a Zapier Zap export, a Power Automate flow).
    """
    kind = foreign_kind(document, wanted)
    if kind is None:
        return
    command = READS.get(kind)
    use = (f"use `cutover scaffold {command} {path}`" if command else
           "scaffold reads n8n workflows (`cutover scaffold n8n`) and Make blueprints (`cutover scaffold make`) only")
    raise ExportFormatError(path, None, None, f"this is {describe(kind)}, not {describe(wanted)}: {use}")


def read_json(path: Path) -> Any:
    """Return one file's JSON; raise ExportFormatError naming the file when it is not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise ExportFormatError(str(path), None, None, "file does not exist") from None
    except UnicodeDecodeError:
        raise ExportFormatError(str(path), None, None, "not UTF-8 text") from None
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ExportFormatError(str(path), None, None, f"not valid JSON ({exc})") from None
