"""The TOML config: defaults, XDG directories, every key checked, and the documented example loads."""
from __future__ import annotations

from pathlib import Path

import pytest

from companion.config import Config, default_config_file, default_data_dir, load_config, parse_config
from companion.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


def test_xdg_directories():
    env = {"XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "/conf"}
    assert default_data_dir(env) == Path("/data/companion")
    assert default_config_file(env) == Path("/conf/companion/config.toml")
    # Relative values are invalid by the XDG spec and ignored.
    assert default_data_dir({"XDG_DATA_HOME": "rel"}) == Path.home() / ".local/share/companion"
    assert default_config_file({}) == Path.home() / ".config/companion/config.toml"


def test_no_file_means_defaults(tmp_path):
    config = load_config(env={"XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "d")})
    assert config.server.port == 8080 and config.server.host == "0.0.0.0"
    assert config.data_dir == tmp_path / "d" / "companion"
    assert config.database == tmp_path / "d" / "companion" / "companion.db"
    assert config.server.worker_threads == 8 and config.server.max_streams >= 200


def test_the_default_file_is_read_when_present(tmp_path):
    (tmp_path / "companion").mkdir()
    (tmp_path / "companion" / "config.toml").write_text("[server]\nport = 9000\n")
    assert load_config(env={"XDG_CONFIG_HOME": str(tmp_path)}).server.port == 9000


def test_the_documented_example_is_valid_and_says_what_the_defaults_are():
    example = load_config(ROOT / "docs" / "config.example.toml")
    defaults = Config()
    assert example.server == defaults.server
    assert example.timer == defaults.timer
    assert example.games["pivit-tiles"]["timer_seconds"] == 60
    assert isinstance(example.hardware, dict) and isinstance(example.camera, dict)


def test_relative_data_dir_is_beside_the_file(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('data_dir = "tables"\n')
    assert load_config(path).data_dir == tmp_path / "tables"


def test_overrides_from_the_command_line(tmp_path):
    config = Config().with_overrides(host="127.0.0.1", port=None, data_dir=str(tmp_path))
    assert config.server.host == "127.0.0.1" and config.server.port == 8080 and config.data_dir == tmp_path


@pytest.mark.parametrize("text, message", [
    ("[server]\nport = 80000\n", "between 1 and 65535"),
    ("[server]\nport = true\n", "port must be a int"),
    ("[server]\nprot = 8080\n", "unknown key 'prot' in [server]"),
    ("[sever]\nport = 8080\n", "unknown key 'sever'"),
    ("server = 3\n", "[server] must be a table"),
    ("[server]\nthreads = -1\n", "threads 0 or more"),
    ("[server]\nmax_streams_per_client = 0\n", "max_streams_per_client"),
    ("[server]\nmax_connections = 4\n", "max_connections must be at least max_connections_per_client"),
    ("[server]\nidle_seconds = 0\n", "idle_seconds"),
    ("[server]\npublic_url = \"192.168.1.2\"\n", "http://"),
    ("[server]\nheartbeat_seconds = 0\n", "heartbeat_seconds"),
    ("[timer]\ndefault_seconds = 0\n", "default_seconds"),
    ("[games]\npivit-tiles = 3\n", "[games.pivit-tiles] must be a table"),
    ("data_dir = 5\n", "data_dir must be"),
    ("[server\nport = 1\n", "not valid TOML"),
])
def test_mistakes_are_named(tmp_path, text, message):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        load_config(path)
    assert message in str(info.value) and str(path) in str(info.value)


def test_missing_and_unreadable_files(tmp_path):
    with pytest.raises(InputError, match="no such config file"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"\xff\xfe port = 1")
    with pytest.raises(InputError, match="cannot read|not valid TOML"):
        load_config(bad)


def test_hardware_and_camera_tables_are_passed_on_unchanged():
    config = parse_config({"hardware": {"buzzer_pin": 18, "anything": [1, 2]}, "camera": {"kind": "usb"}})
    assert config.hardware == {"buzzer_pin": 18, "anything": [1, 2]} and config.camera == {"kind": "usb"}
