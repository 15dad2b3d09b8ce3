"""Issue 25's lobby and page floods against a release `gore serve`
(docs/SECURITY.md, docs/BENCHMARKS.md).

    python3 crates/gore-server/scripts/lobby-floods.py seeks target/release [SECONDS]
    python3 crates/gore-server/scripts/lobby-floods.py pages target/release [SECONDS]

`seeks` (ghost seeks): one address (`X-Forwarded-For: 203.0.113.66`
through `--trust-proxy 127.0.0.1`, the default rate limit) makes a
throw-away session after another for SECONDS (30): each asks for a quick
pairing over HTTP (`POST /api/lobby/seek`, as the issue's attacker did),
and every fifth also over a lobby socket it keeps open without ever
playing. After a third of the time, nine innocent pairings: two fresh
sessions from other addresses seek the same pace over their lobby
sockets; prints whether each pair met (or landed on a ghost), the
attacker's answers, and the rows of players and challenges the flood left.

`pages`: one address asks `GET /g/{random id}` (a database lookup each)
from 8 connections for SECONDS (10); meanwhile an innocent from another
address asks `GET /api/me`: prints the pages answered (not `429`) per
second, and the innocent's p50/p99 before and during.

Python's standard library only (the WebSocket client of floods.py).
"""
import http.client, json, os, sqlite3, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from floods import Ws, pct  # noqa: E402


def serve(bin_dir, db):
    p = subprocess.Popen([f"{bin_dir}/gore", "serve", "--port", "0", "--db", db,
                          "--trust-proxy", "127.0.0.1", "--max-conns-per-ip", "100000"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    host, port = line.split("http://")[1].strip().strip("/").rsplit(":", 1)
    return p, host, int(port)


def request(host, port, method, path, xff, cookie=None, body=None):
    """(status, JSON or None, the session cookie set, if any)."""
    c = http.client.HTTPConnection(host, port, timeout=60)
    headers = {"X-Forwarded-For": xff, "Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = cookie
    c.request(method, path, json.dumps(body) if body is not None else None, headers)
    res = c.getresponse()
    data = res.read()
    set_cookie = res.getheader("Set-Cookie")
    c.close()
    try:
        value = json.loads(data or b"null")
    except ValueError:
        value = None
    return res.status, value, set_cookie.split(";")[0] if set_cookie else None


def session(host, port, xff):
    status, _, cookie = request(host, port, "GET", "/api/me", xff)
    return cookie if status == 200 else None


def lobby_seek(host, port, xff, cookie, clock="5+3"):
    """A lobby socket that seeks: (socket, its first answer to the seek)."""
    ws = Ws(host, port, "/api/lobby/ws", xff, cookie)
    ws.send({"type": "seek", "clock": clock})
    while True:
        m = ws.recv()
        if m["type"] in ("waiting", "paired", "error"):
            return ws, m


def seeks(bin_dir, seconds):
    db = tempfile.mkdtemp() + "/gore.sqlite3"
    p, host, port = serve(bin_dir, db)
    attacker = "203.0.113.66"
    counts, ghosts = {}, []
    stop = threading.Event()

    def flood():
        n = 0
        while not stop.is_set():
            cookie = session(host, port, attacker)
            if not cookie:
                counts["session refused"] = counts.get("session refused", 0) + 1
                time.sleep(0.05)
                continue
            status, v, _ = request(host, port, "POST", "/api/lobby/seek", attacker, cookie, {"clock": "5+3"})
            key = f"HTTP seek {status}"
            counts[key] = counts.get(key, 0) + 1
            n += 1
            if n % 5 == 0:
                try:
                    ws, m = lobby_seek(host, port, attacker, cookie)
                    key = f"socket seek {m['type']}" + (f" {m['error']['code']}" if m["type"] == "error" else "")
                    counts[key] = counts.get(key, 0) + 1
                    ghosts.append(ws)
                except OSError as e:
                    key = f"socket refused ({str(e)[:40]})"
                    counts[key] = counts.get(key, 0) + 1

    t = threading.Thread(target=flood, daemon=True)
    t.start()
    time.sleep(seconds / 3)
    met = ghost = 0
    for i in range(9):
        a, b = f"198.51.100.{10 + 2 * i}", f"198.51.100.{11 + 2 * i}"
        ca, cb = session(host, port, a), session(host, port, b)
        wa, ma = lobby_seek(host, port, a, ca)
        wb, mb = lobby_seek(host, port, b, cb)
        game_b = mb.get("game")
        if ma["type"] == "waiting":
            while ma["type"] != "paired":
                ma = wa.recv()
        if ma.get("game") and ma.get("game") == game_b:
            met += 1
        else:
            ghost += 1
        wa.s.close()
        wb.s.close()
    time.sleep(max(0.0, seconds * 2 / 3 - 2))
    stop.set()
    t.join()
    for ws in ghosts:
        ws.s.close()
    con = sqlite3.connect(db)
    players = con.execute("SELECT COUNT(*) FROM players").fetchone()[0]
    challenges = con.execute("SELECT COUNT(*) FROM challenges").fetchone()[0]
    con.close()
    p.kill()
    p.wait()
    print(f"innocent pairings: {met} of 9 met each other, {ghost} landed elsewhere")
    print("attacker's answers: " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    print(f"rows left: {players} players (the innocents' 18 included), {challenges} challenges")


def pages(bin_dir, seconds):
    db = tempfile.mkdtemp() + "/gore.sqlite3"
    p, host, port = serve(bin_dir, db)
    stop = threading.Event()
    answered, limited = [0], [0]
    lock = threading.Lock()

    def flood():
        c = http.client.HTTPConnection(host, port, timeout=60)
        while not stop.is_set():
            try:
                c.request("GET", "/g/" + os.urandom(16).hex(), headers={"X-Forwarded-For": "203.0.113.77"})
                res = c.getresponse()
                res.read()
                with lock:
                    if res.status == 429:
                        limited[0] += 1
                    else:
                        answered[0] += 1
                if res.getheader("Connection", "").lower() == "close":
                    c.close()
                    c = http.client.HTTPConnection(host, port, timeout=60)
            except (OSError, http.client.HTTPException):
                c.close()
                c = http.client.HTTPConnection(host, port, timeout=60)

    def innocent(until):
        times = []
        while time.time() < until:
            t0 = time.time()
            request(host, port, "GET", "/api/me", "198.51.100.5")
            times.append(time.time() - t0)
            time.sleep(0.05)
        return times

    before = innocent(time.time() + 3)
    threads = [threading.Thread(target=flood, daemon=True) for _ in range(8)]
    for th in threads:
        th.start()
    t0 = time.time()
    during = innocent(t0 + seconds)
    stop.set()
    for th in threads:
        th.join()
    elapsed = time.time() - t0
    p.kill()
    p.wait()
    print(f"pages answered: {answered[0] / elapsed:.0f}/s ({answered[0]} in {elapsed:.1f} s), "
          f"refused 429: {limited[0]}")
    print(f"innocent GET /api/me: before p50 {pct(before, 0.5):.1f} ms p99 {pct(before, 0.99):.1f} ms; "
          f"during p50 {pct(during, 0.5):.1f} ms p99 {pct(during, 0.99):.1f} ms")


if __name__ == "__main__":
    cmd, bin_dir = sys.argv[1], sys.argv[2]
    if cmd == "seeks":
        seeks(bin_dir, float(sys.argv[3]) if len(sys.argv) > 3 else 30.0)
    elif cmd == "pages":
        pages(bin_dir, float(sys.argv[3]) if len(sys.argv) > 3 else 10.0)
    else:
        sys.exit(__doc__)
