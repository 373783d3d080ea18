"""The `companion` program's exit: a command that has written everything out ends without the
interpreter's teardown, unless something is left to run at exit."""
from __future__ import annotations

import subprocess
import sys


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_ends_at_once_with_the_streams_flushed():
    done = _python("import sys\nfrom companion.cli import _end_at_once\nprint('written', end='')\n"
                   "print('and this', end='', file=sys.stderr)\n_end_at_once(3)\nprint(' not reached')\n")
    assert (done.returncode, done.stdout, done.stderr) == (3, "written", "and this")


def test_an_exit_handler_or_a_thread_still_gets_a_normal_exit():
    handler = _python("import atexit\nfrom companion.cli import _end_at_once\n"
                      "atexit.register(lambda: print('handler ran'))\n_end_at_once(3)\nprint('went on')\n")
    assert (handler.returncode, handler.stdout.split()) == (0, ["went", "on", "handler", "ran"])
    thread = _python("import threading, time\nfrom companion.cli import _end_at_once\n"
                     "t = threading.Thread(target=lambda: (time.sleep(0.3), print('thread done')))\nt.start()\n"
                     "_end_at_once(3)\nprint('went on')\n")
    assert (thread.returncode, thread.stdout.split()) == (0, ["went", "on", "thread", "done"])


def test_the_photo_reading_commands_end_at_once():
    from companion.cli import build_parser

    parser = build_parser("vision")
    for argv in (["vision", "read", "p.jpg"], ["vision", "read-hand", "p.jpg"], ["vision", "check", "p.jpg"]):
        assert parser.parse_args(argv).ends_written is True
    assert not getattr(build_parser("pivit").parse_args(["pivit", "check", "g.txt"]), "ends_written", False)
