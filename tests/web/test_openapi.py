"""/api/openapi.json describes every /api route of the app, and nothing that is not there."""
from __future__ import annotations

import re


def test_openapi_matches_the_routes(app, client):
    doc = client.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.")
    assert doc["servers"] == [{"url": "http://192.168.1.20:8080"}]
    documented = {(path, method.upper()) for path, item in doc["paths"].items() for method in item}
    routed = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routed.add((path, method))
    assert documented == routed


def test_every_reference_resolves(client):
    doc = client.get("/api/openapi.json").get_json()
    schemas = doc["components"]["schemas"]

    def walk(node):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if ref:
                assert ref.startswith("#/components/schemas/") and ref.rsplit("/", 1)[1] in schemas, ref
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(doc)
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            assert operation["responses"], (path, method)
            params = re.findall(r"{(\w+)}", path)
            declared = {p["name"] for p in operation.get("parameters", []) if p["in"] == "path"}
            assert set(params) == declared, (path, method)
