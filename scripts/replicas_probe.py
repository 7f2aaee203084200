#!/usr/bin/env python3
"""The writer of scripts/replicas.sh: edits site S03 through the balancer, and after each edit
asks every replica directly until its map layer (`/collections/sites/items/S03`, served from
the replica's snapshot, not read from the database) and its sites tile show the edit. Prints
the time each edit took to be visible on all replicas, and fails on an edit that is refused,
never shown, or a tile that was not invalidated. Standard library only.

Usage: replicas_probe.py BALANCER TOKEN EDITS REPLICA_URL...
"""
import json
import math
import sys
import time
import urllib.error
import urllib.request

GIVE_UP_S = 30.0  # only ends a hung run; the figures are what is reported
SITE = "S03"
LON, LAT, ZOOM = -76.1560, 43.2050, 14


def request(url, method="GET", body=None, headers=None, tries=1):
    """(status, headers, body bytes); a refused connection is retried `tries` times."""
    data = json.dumps(body).encode() if body is not None else None
    for attempt in range(tries):
        req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()
        except (urllib.error.URLError, ConnectionError):
            if attempt + 1 == tries:
                raise
            time.sleep(0.05)
    raise RuntimeError("unreachable")


def tile_path():
    n = 2 ** ZOOM
    col = int((LON + 180.0) / 360.0 * n)
    lat = math.radians(LAT)
    row = int((1.0 - math.log(math.tan(lat) + 1.0 / math.cos(lat)) / math.pi) / 2.0 * n)
    return f"/collections/sites/tiles/WebMercatorQuad/{ZOOM}/{row}/{col}"


def shown_status(replica):
    status, _, body = request(f"{replica}/collections/sites/items/{SITE}", tries=50)
    if status != 200:
        return None
    return json.loads(body)["properties"].get("status")


def tile_etag(replica):
    status, headers, _ = request(replica + tile_path(), tries=50)
    return headers.get("ETag") if status == 200 else None


def edit(balancer, token, status_word):
    """One PATCH through the balancer; the stored status code and the time it was answered."""
    _, headers, _ = request(f"{balancer}/sites/{SITE}", tries=20)
    etag = headers.get("ETag")
    status, _, body = request(
        f"{balancer}/sites/{SITE}",
        method="PATCH",
        body={"status": status_word},
        headers={
            "Authorization": f"Bearer {token}",
            "If-Match": etag,
            "Content-Type": "application/json",
        },
        tries=20,
    )
    answered = time.monotonic()
    if status != 200:
        sys.exit(f"FAIL: the edit through the balancer answered {status}: {body[:300]!r}")
    return json.loads(body)["site"]["properties"]["status"], answered


def main():
    balancer, token, edits, replicas = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    seen_ms, tiles_renewed = [], 0
    for i in range(edits):
        word = "closed" if i % 2 == 0 else "active"
        before = {r: tile_etag(r) for r in replicas}
        code, answered = edit(balancer, token, word)
        pending = set(replicas)
        while pending:
            for r in list(pending):
                if shown_status(r) == code:
                    pending.discard(r)
            if time.monotonic() - answered > GIVE_UP_S:
                sys.exit(f"FAIL: edit {i + 1} ({word}) never showed on {sorted(pending)}")
        seen_ms.append((time.monotonic() - answered) * 1000.0)
        for r in replicas:
            after = tile_etag(r)
            if after is None or after == before[r]:
                sys.exit(f"FAIL: edit {i + 1}: the sites tile on {r} still has ETag {after}")
            tiles_renewed += 1
    seen_ms.sort()
    median = seen_ms[len(seen_ms) // 2]
    print(f"edits: {edits} through the balancer, each visible on all {len(replicas)} replicas")
    print(f"visible on every replica after: median {median:.0f} ms, max {seen_ms[-1]:.0f} ms"
          f" (goal 1000 ms: {'met' if seen_ms[-1] <= 1000 else 'NOT met'})")
    print(f"sites tile renewed after each edit on each replica: {tiles_renewed} of "
          f"{edits * len(replicas)}")


if __name__ == "__main__":
    main()
