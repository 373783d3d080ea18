#!/usr/bin/env bash
# Install the table companion as a service that starts at boot on a Raspberry Pi.
#
#   sudo hardware/install/install.sh            # from a clone of the project
#   hardware/install/install.sh --dry-run       # print what it would do
#
# What it does, the way well-known Pi projects do it:
#   - apt: python3-venv, python3-lgpio (gpiozero's pin driver on a Pi 5)
#   - a system user "companion" in the gpio, dialout and video groups
#   - the project in a virtualenv under /opt/companion (system site packages,
#     so the apt-installed lgpio is visible)
#   - /etc/companion/config.toml with a [hardware] table, if there is none
#   - /etc/systemd/system/companion.service, enabled and started
# Running it again upgrades the installed project and keeps the config.
set -euo pipefail

DRY_RUN=0
[[ "${1:-}" == "--dry-run" ]] && DRY_RUN=1

SERVICE_USER=companion
PREFIX=/opt/companion
CONFIG_DIR=/etc/companion
UNIT=/etc/systemd/system/companion.service
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

run() {
    echo "+ $*"
    if [[ $DRY_RUN -eq 0 ]]; then "$@"; fi
}

if [[ $DRY_RUN -eq 0 && $EUID -ne 0 ]]; then
    echo "install.sh: run me as root (sudo $0)" >&2
    exit 2
fi
if [[ ! -f "$SRC/pyproject.toml" ]]; then
    echo "install.sh: $SRC is not the companion project" >&2
    exit 2
fi

run apt-get update
run apt-get install -y python3-venv python3-pip python3-lgpio

if ! id -u "$SERVICE_USER" >/dev/null 2>&1; then
    run useradd --system --home-dir /var/lib/companion --shell /usr/sbin/nologin "$SERVICE_USER"
fi
for group in gpio dialout video; do
    if getent group "$group" >/dev/null; then
        run usermod -aG "$group" "$SERVICE_USER"
    else
        echo "install.sh: no group '$group' on this system (not Raspberry Pi OS?): skipped" >&2
    fi
done

copy_source() {
    # The project without its virtualenv, git history or caches.
    rm -rf "$PREFIX/src"
    mkdir -p "$PREFIX/src"
    tar -C "$SRC" --exclude=./.venv --exclude=./.git --exclude='__pycache__' \
        --exclude=./test-artifacts -cf - . | tar -C "$PREFIX/src" -xf -
}
run mkdir -p "$PREFIX"
run copy_source
if [[ ! -x "$PREFIX/venv/bin/python" ]]; then
    run python3 -m venv --system-site-packages "$PREFIX/venv"
fi
run "$PREFIX/venv/bin/pip" install --upgrade "$PREFIX/src"

run mkdir -p "$CONFIG_DIR"
if [[ ! -f "$CONFIG_DIR/config.toml" ]]; then
    echo "+ write $CONFIG_DIR/config.toml"
    if [[ $DRY_RUN -eq 0 ]]; then
        cat > "$CONFIG_DIR/config.toml" <<'TOML'
# The table companion's config. Keys: docs/hardware/config.md (and docs/api.md).
[hardware]
serial_port = "auto"     # the Pico USB timer, found by USB 2E8A:0005
gpio = "auto"
buzzer_pin = 18
buzzer_type = "active"   # "passive" for a piezo played by PWM
led_running_pin = 23
led_last_seconds_pin = 24
timer_button_pin = 17
done_button_pins = []    # e.g. [5, 6, 13, 19]
TOML
    fi
fi

run install -m 0644 "$SRC/hardware/install/companion.service" "$UNIT"
run systemctl daemon-reload
run systemctl enable --now companion.service
echo "install.sh: done. Status: systemctl status companion; logs: journalctl -u companion -f"
