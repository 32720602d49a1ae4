"""The HTML report renders in a real browser: headless Chromium (Debian's ``chromium``) dumps the
DOM of ``reports/<set>/index.html`` written by an actual ``pytest --shadow`` run.

This test does not skip: without Chromium it fails and says how to install it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("headless Chromium is required to check the HTML report and was not found on PATH; "
                "install Debian's package: apt-get update && apt-get install -y chromium (.ci/run does)",
                pytrace=False)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("report")
    subprocess.run([sys.executable, str(ROOT / "recordings" / "generate.py"), "--out", str(work / "set"),
                    "--triggers", "400", "--seed", "3"], cwd=ROOT, check=True, capture_output=True)
    run = subprocess.run([sys.executable, "-m", "pytest", "--shadow", str(work / "set"), "--shadow-report",
                          str(work / "out"), "-q", "-p", "no:cacheprovider"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    return work / "out" / "index.html"


def test_the_report_renders_its_verdicts_and_a_cluster_in_chromium(report: Path, tmp_path: Path) -> None:
    browser = _chromium()
    env = dict(os.environ, HOME=str(tmp_path))
    done = subprocess.run([browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                           report.as_uri()], capture_output=True, text=True, timeout=120, env=env, check=False)
    dom = done.stdout
    assert done.returncode == 0, done.stderr[-2000:]
    assert "<h2 id=\"gate\">Go-live gate</h2>" in dom
    assert 'id="verdict-github-triage"' in dom and "NOT READY" in dom
    assert 'id="verdict-payment-dunning"><h3>payment-dunning <span class="badge ready">READY</span>' in dom
    assert '<svg role="img" aria-label="agreement chart"' in dom
    assert 'data-signature="github-triage decisions.route value_changed"' in dom
    cluster = dom.split('data-signature="github-triage decisions.route value_changed"', 1)[1].split("</section>", 1)[0]
    assert "<th>legacy</th><th>new</th>" in cluster
    assert '<pre>"other"</pre>' in cluster and '<pre>"bug"</pre>' in cluster
    assert "http://" not in dom.replace("http://www.w3.org/2000/svg", "")  # nothing to fetch
