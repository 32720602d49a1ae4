"""The HTML report renders in a real browser: headless Chromium (Debian's ``chromium``) dumps the
DOM of ``reports/<set>/index.html`` written by an actual ``pytest --shadow`` run.

Without Chromium the test is reported as skipped, with the reason and the install command, so
the README's ``pytest`` passes on a fresh machine; where ``CI`` is set (``.ci/run`` sets it and
installs Chromium) a missing browser fails the run instead. ``CUTOVER_CHROMIUM`` names the browser
to use (a path or a command name), in place of looking for ``chromium`` on PATH.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.external import find_binary, require_binary

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


INSTALL = "apt-get update && apt-get install -y chromium"
MISSING = (f"headless Chromium renders the HTML report here and was not found "
           f"(CUTOVER_CHROMIUM, else chromium on PATH); install Debian's package: {INSTALL}")


@pytest.fixture(scope="module")
def browser() -> str:
    """The browser's path; skips without one, except under CI, where it fails (tests/support/external.py)."""
    return require_binary(find_binary("CUTOVER_CHROMIUM", ["chromium", "chromium-browser"]), MISSING,
                          test="the browser test")


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


def test_the_report_renders_its_verdicts_and_a_cluster_in_chromium(browser: str, report: Path, tmp_path: Path) -> None:
    env = dict(os.environ, HOME=str(tmp_path))
    done = subprocess.run([browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                           report.as_uri()], capture_output=True, text=True, timeout=120, env=env, check=False)
    dom = done.stdout
    assert done.returncode == 0, done.stderr[-2000:]
    assert "<h2 id=\"gate\">Go-live gate</h2>" in dom
    assert 'id="verdict-github-triage"' in dom and "NOT READY" in dom
    assert ('id="verdict-bug-digest"><h3>bug-digest <span class="badge ready">READY (status, path, decisions, '
            'calls only)</span>') in dom  # hand-written code records no node outputs: the depth shows
    assert ('id="verdict-payment-dunning"><h3>payment-dunning <span class="badge ready">READY (status, path, '
            'decisions only)</span>') in dom  # Zapier runs + Zapfile: the evidence limit shows
    assert '<svg role="img" aria-label="agreement chart"' in dom
    assert 'data-signature="github-triage decisions.route value_changed"' in dom
    cluster = dom.split('data-signature="github-triage decisions.route value_changed"', 1)[1].split("</section>", 1)[0]
    assert "<th>legacy</th><th>new</th>" in cluster
    assert '<pre>"other"</pre>' in cluster and '<pre>"bug"</pre>' in cluster
    assert "trigger fields read before this decision:" in cluster  # the cause: what the new code read
    assert "<code>body.issue.title</code>" in cluster
    assert "http://" not in dom.replace("http://www.w3.org/2000/svg", "")  # nothing to fetch


def _run_without_a_browser(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "CI"}
    environ.update(CUTOVER_CHROMIUM=str(tmp_path / "no-such-chromium"), **env)
    return subprocess.run([sys.executable, "-m", "pytest", f"{__file__}::test_the_report_renders_its_verdicts_and_a_cluster_in_chromium",
                           "-rs", "-p", "no:cacheprovider", "--no-header"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, env=environ, check=False)


def test_without_chromium_the_browser_test_is_skipped_naming_the_install_command(tmp_path: Path) -> None:
    run = _run_without_a_browser(tmp_path)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "1 skipped" in run.stdout and INSTALL in run.stdout


def test_without_chromium_under_ci_the_browser_test_fails(tmp_path: Path) -> None:
    run = _run_without_a_browser(tmp_path, CI="true")
    assert run.returncode == 1, run.stdout[-3000:]
    assert "CI is set: the browser test must run" in run.stdout and INSTALL in run.stdout
