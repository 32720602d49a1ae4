"""Stream a 1,000,000-trigger file through the loader and report peak memory against file size.

    python bench/recording_load.py [--triggers 1000000] [--keep DIR]

Writes a ``triggers.jsonl`` of small realistic triggers to a temporary directory, measures the
process's peak RSS before and after validating every line with ``iter_triggers``, and prints the
ratio of the loader's peak memory growth to the file's size. The last line is
``RESULT {json}``. Nothing here asserts a time: it is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from harness.recording import dump_line, iter_triggers


def peak_rss_bytes() -> int:
    """Return this process's peak resident set size in bytes (ru_maxrss is KiB on Linux)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def write_file(path: Path, count: int) -> int:
    """Write ``count`` triggers, one JSON line each, and return the file size in bytes."""
    start = datetime(2024, 6, 1, tzinfo=UTC)
    with path.open("w", encoding="utf-8") as handle:
        for index in range(count):
            record = {
                "id": f"delivery-{index:08d}",
                "received_at": (start + timedelta(milliseconds=index * 37)).isoformat().replace("+00:00", "Z"),
                "headers": {"content-type": "application/json", "x-github-event": "issues"},
                "body": {"action": "opened", "issue": {"number": index, "title": f"Issue {index}", "labels": [{"name": "bug"}]},
                         "repository": {"full_name": "octo-org/hello-world"}},
                "source": "bench",
            }
            handle.write(dump_line(record))
    return path.stat().st_size


def main() -> None:
    """Run the measurement and print the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triggers", type=int, default=1_000_000)
    parser.add_argument("--keep", type=Path, help="write the file here instead of a temporary directory")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        path = (args.keep or Path(scratch)) / "triggers.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        size = write_file(path, args.triggers)
        before = peak_rss_bytes()
        began = time.perf_counter()
        count = sum(1 for _ in iter_triggers(path))
        seconds = time.perf_counter() - began
        after = peak_rss_bytes()
    growth = max(after - before, 0)
    result = {
        "triggers": count, "file_bytes": size, "peak_rss_before_bytes": before, "peak_rss_after_bytes": after,
        "loader_growth_bytes": growth, "growth_to_file_ratio": round(growth / size, 6),
        "lines_per_second": round(count / seconds), "seconds": round(seconds, 2),
    }
    print(f"file {size / 2**20:.1f} MiB, {count} triggers loaded in {seconds:.1f}s; "
          f"peak RSS {before / 2**20:.1f} → {after / 2**20:.1f} MiB (growth {growth / size:.4f}× the file)")
    print("RESULT " + json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
