"""The Pi install script and systemd unit: syntax, and what a dry run would do."""
from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "hardware" / "install" / "install.sh"
UNIT = ROOT / "hardware" / "install" / "companion.service"


@pytest.fixture
def bash():
    path = shutil.which("bash")
    if path is None:
        pytest.skip("no bash")
    return path


def test_install_script_is_valid_bash(bash):
    subprocess.run([bash, "-n", str(SCRIPT)], check=True)


def test_dry_run_creates_the_user_with_its_groups_and_enables_the_unit(bash):
    result = subprocess.run([bash, str(SCRIPT), "--dry-run"], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr
    steps = [line[2:] for line in result.stdout.splitlines() if line.startswith("+ ")]
    assert "apt-get install -y python3-venv python3-pip python3-lgpio" in steps
    assert "/opt/companion/venv/bin/pip install --upgrade /opt/companion/src" in steps
    if not Path("/opt/companion/venv/bin/python").exists():
        assert "python3 -m venv --system-site-packages /opt/companion/venv" in steps
    groups = [s.split()[2] for s in steps if s.startswith("usermod -aG")]
    skipped = [g for g in ("gpio", "dialout", "video") if f"no group '{g}'" in result.stderr]
    assert sorted(groups + skipped) == ["dialout", "gpio", "video"]
    assert steps[-1] == "systemctl enable --now companion.service"
    assert f"install -m 0644 {UNIT} /etc/systemd/system/companion.service" in steps


def test_unit_runs_the_service_as_its_own_user_from_the_venv():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read_string(UNIT.read_text())
    service = unit["Service"]
    assert service["User"] == "companion"
    assert service["ExecStart"].startswith("/opt/companion/venv/bin/companion serve ")
    for flag in ("--host 0.0.0.0", "--port 8080", "--data-dir /var/lib/companion",
                 "--config /etc/companion/config.toml"):
        assert flag in service["ExecStart"]
    assert service["Restart"] == "on-failure"
    assert unit["Install"]["WantedBy"] == "multi-user.target"
