"""The pages: home, live table, history, the chart and the exports; escaping and security headers."""
from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET

PIN = "2468"
NASTY = '<b>"Zed"</b>&'


def test_home_lists_tables_and_offers_every_game(client, api):
    api.create(players=("Ann", "Bob"))
    page = client.get("/")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "Pivit (tile game)" in html and "Ann, Bob" in html
    assert 'id="new-table"' in html and 'data-option="timer_seconds"' in html
    assert 'href="http://192.168.1.20:8080/"' in html  # the LAN address, beside its QR code
    assert "<svg" in html and 'class="qr"' in html
    csp = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    # No inline script may run under that policy: only data blocks and files.
    for tag in re.findall(r"<script[^>]*>", html):
        assert "src=" in tag or 'type="application/json"' in tag, tag


def test_home_form_starts_with_the_configured_defaults(service):
    from companion.config import Config
    from web import create_app

    config = Config(games={"pivit-tiles": {"timer_seconds": 45, "not_an_option": 1}})
    app = create_app({"TABLE_SERVICE": service, "START_TICKER": False, "COMPANION": config})
    html = app.test_client().get("/").get_data(as_text=True)
    assert re.search(r'data-option="timer_seconds"[^>]*value="45"', html)
    assert "not_an_option" not in html


def test_table_page(client, api):
    table = api.create(players=("Ann", "Bob"))
    page = client.get(f"/tables/{table['id']}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert f'data-table-id="{table["id"]}"' in html
    assert "/static/games/pivit-tiles.js" in html and 'id="pivit"' in html
    assert f"http://192.168.1.20:8080/tables/{table['id']}" in html
    assert 'id="simulated-devices"' in html  # no hardware: the page shows the display and buzzer
    initial = re.search(r'<script type="application/json" id="initial-table">(.*?)</script>', html, re.S).group(1)
    assert json.loads(initial)["id"] == table["id"]
    for control in ("Start timer", "Pause timer", "Undo", "Redo", "Unlock", "I am"):
        assert control in html


def test_a_game_without_its_own_page_gets_the_generic_one(client, api):
    table = api.create(game="counting", players=("Ann",))
    html = client.get(f"/tables/{table['id']}").get_data(as_text=True)
    assert "/static/games/_generic.js" in html and 'id="generic-actions"' in html


def test_names_are_escaped_everywhere(client, api):
    table = api.create(players=("Ann", NASTY))
    tid = table["id"]
    for path in ("/", f"/tables/{tid}"):
        html = client.get(path).get_data(as_text=True)
        assert "<b>" not in html
        assert "&lt;b&gt;&#34;Zed&#34;&lt;/b&gt;&amp;" in html
    # The data block cannot be closed early by a name.
    html = client.get(f"/tables/{tid}").get_data(as_text=True)
    block = re.search(r'id="initial-table">(.*?)</script>', html, re.S).group(1)
    assert "<" not in block and json.loads(block)["players"][1] == NASTY
    svg = client.get(f"/tables/{tid}/chart.svg").get_data(as_text=True)
    ET.fromstring(svg)  # well-formed: the name is escaped
    assert "&lt;b&gt;" in svg


def test_unknown_table_page_is_a_404_page(client):
    page = client.get("/tables/nope")
    assert page.status_code == 404 and "no table" in page.get_data(as_text=True)
    assert page.mimetype == "text/html"


def finish_two_player_game(api, service, clock, tid):
    while True:
        api.act(tid, type="start-round")
        api.act(tid, type="done", player=0)
        api.act(tid, type="verify", player=0, valid=True)
        clock.advance(60)
        service.fire_due()
        after = api.get(tid)
        if after["finished"]:
            return after
        api.act(tid, type="next-round")


def test_history_counts_wins_scores_and_finishing_time(client, api, service, clock):
    first = api.create(players=("Ann", "Bob"))
    finish_two_player_game(api, service, clock, first["id"])
    second = api.create(players=("bob", "Cy"))  # same player, other spelling
    finish_two_player_game(api, service, clock, second["id"])
    api.create(players=("Unfinished", "Game"))
    page = client.get("/history")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Unfinished" not in html
    rows = {m.group(1): m.group(2) for m in re.finditer(r'<tr><th scope="row">(.*?)</th>(.*?)</tr>', html, re.S)}
    cells = {name: re.findall(r"<td[^>]*>(.*?)</td>", row) for name, row in rows.items()}
    # Ann won her game 24 to 8; Bob lost one (8) and won one (24) as "bob".
    assert cells["Ann"][:3] == ["1", "1", "24.0"]
    assert cells["Bob"][:3] == ["2", "1", "16.0"]
    assert cells["Cy"][:3] == ["1", "0", "8.0"]
    assert cells["Ann"][3] == "4.0 min"  # four rounds of a minute each
    assert html.count('class="chart"') == 2
    # Every number is named for the narrow layout, each game has its date and time, and the
    # game's story is told in sentences.
    assert '<td data-label="Average score">24.0</td>' in html
    from web.history import local_time

    when = local_time(service.get(first["id"]).finished_ms)
    assert re.fullmatch(r"\w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d", when) and when in html
    assert "What happened" in html and "Go! The round started" in html and "Time ran out" in html
    assert "Ann&#39;s grid was marked correct" in html


def test_chart_is_svg_with_a_line_per_player(client, api, service, clock):
    table = api.create(players=("Ann", "Bob"))
    finish_two_player_game(api, service, clock, table["id"])
    response = client.get(f"/tables/{table['id']}/chart.svg")
    assert response.mimetype == "image/svg+xml"
    root = ET.fromstring(response.get_data(as_text=True))
    ns = {"s": "http://www.w3.org/2000/svg"}
    lines = root.findall(".//s:polyline", ns)
    assert len(lines) == 2 and lines[0].get("stroke-dasharray") is None and lines[1].get("stroke-dasharray")
    labels = [t.text for t in root.findall(".//s:text[@data-player]", ns)]
    assert labels == ["Ann 24", "Bob 8"]
    assert "target 20" in "".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert root.find("s:title", ns).text.startswith("Pivit")


def test_chart_of_a_fresh_table_says_no_scores_yet(client, api):
    table = api.create()
    svg = client.get(f"/tables/{table['id']}/chart.svg").get_data(as_text=True)
    ET.fromstring(svg)
    assert "No scores yet." not in svg  # everyone starts at 0: one step is drawn
    table = api.create(game="counting", players=("Ann",))
    svg = client.get(f"/tables/{table['id']}/chart.svg").get_data(as_text=True)
    assert "<polyline" in svg


def test_exports(client, api, service, clock):
    table = api.create(players=("Ann", "=cmd()"))
    tid = table["id"]
    api.act(tid, type="start-round")
    api.act(tid, type="trade", player=1)
    api.act(tid, type="trade", player=0)
    api.post(f"/api/tables/{tid}/undo")
    api.act(tid, type="done", player=0)
    api.act(tid, type="verify", player=0, valid=True)
    clock.advance(60)
    service.fire_due()
    response = client.get(f"/tables/{tid}/export.csv")
    assert response.mimetype == "text/csv"
    assert f'filename="pivit-tiles-{tid}.csv"' in response.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert rows[0] == ["n", "time_utc", "event", "player", "player_name", "details", "score Ann", "score =cmd()"]
    # The undone trade is not there; a name a spreadsheet would run as a formula is defused.
    assert [r[2] for r in rows[1:]] == ["start-round", "trade", "done", "verify", "timer-expired"]
    assert rows[2][3:5] == ["1", "'=cmd()"]
    assert rows[4][5] == '{"valid": true}'
    assert rows[-1][6:] == ["6", "1"]
    response = client.get(f"/tables/{tid}/export.json")
    assert response.mimetype == "application/json"
    data = json.loads(response.get_data(as_text=True))
    assert data["players"] == ["Ann", "=cmd()"] and data["scores"] == [6, 1]
    assert [e["event"]["type"] for e in data["events"]] == ["start-round", "trade", "done", "verify", "timer-expired"]
    assert [e["kind"] for e in data["log"]].count("undo") == 1
    assert data["state"]["phase"] == "scored"
    assert client.get("/tables/nope/export.csv").status_code == 404
    assert client.get("/tables/nope/export.json").status_code == 404
    assert client.get("/tables/nope/chart.svg").status_code == 404


def test_static_files_are_served(client):
    for name in ("app.css", "common.js", "home.js", "table.js", "games/pivit-tiles.js", "games/_generic.js"):
        assert client.get(f"/static/{name}").status_code == 200, name


def test_options_with_fixed_values_are_menus(client):
    """Every game's option_choices become a <select> holding the default, so no value is typed wrong."""
    from companion.games import available_games, get_game

    html = client.get("/").get_data(as_text=True)
    for game_id in available_games():
        game = get_game(game_id)
        for key, values in getattr(game, "option_choices", lambda: {})().items():
            assert game.default_options()[key] in values
            assert f'<select id="opt-{game_id}-{key}"' in html
    assert '<textarea id="opt-scrabble-junior-layout_text"' in html
