"""Issue 37's floods of the newer surfaces, run against two release builds
side by side (docs/BENCHMARKS.md, "The newer surfaces under abuse").

    python3 crates/gore-server/scripts/abuse-floods.py SCENARIO OLD_BIN_DIR NEW_BIN_DIR [N]

SCENARIO is one of the below; each is run on a fresh `gore serve` (a temp
SQLite database, `--port 0`, `--rate-limit 0`, `--trust-proxy 127.0.0.1`
and `--max-conns-per-ip 100000`, so that `X-Forwarded-For` gives every
client its own address: floods.py's `serve`) of OLD_BIN_DIR's `gore`, then
of NEW_BIN_DIR's, one after the other in one invocation. A flag that a
build's `gore serve --help` does not list is left out for that build (and
said). Meanwhile an innocent (his own address and session) asks `GET
/api/me` every 50 ms over a new connection each time; the table at the end
has a row per build: his p50/p99 before the flood (baseline) and during
it, and the scenario's own figures. Every wait is bounded.

`tournaments`: two innocents join an arena and play their pairings (each
makes an action, one resigns): the time from the resignation to their
next pairing, 3 times (the baseline). Then one account from 20 addresses
creates 180-minute arenas as fast as it can for 2 s (N: the addresses)
and the innocents, on a new arena, do the same again: their first
pairing and each re-pairing within 20 s, or never.

`event-streams`: N (600) `GET /api/stream/event` on one BOT's token from
10 addresses, held open and read; meanwhile another account challenges
the BOT and cancels it, 5 challenges a second, for 20 s. Prints the
streams answered 200 and refused (by status), those the server ended, and
the innocent's figures.

`pages`: a first visit's `GET /g/{id}` (no assets cookie, `Accept-Encoding:
br, gzip`) of a 100-ply local game, from 1 address × 4 connections for
15 s, then from 8 addresses × 4 connections for 15 s: the pages answered
a second, how many were the inline page (over 50 KB on the wire), the
megabytes a second the attacker got, the innocent's figures in each. N
here is the server's `--rate-limit` (requests a second per address): 0,
off, by default, as in the other scenarios; 20 is gore's default.

`game-streams`: a BOT and a person play a game (`seeds=8`, the longest:
first legal actions each time, up to 1,000 plies; it ends at 187, so it is
played again to 10 plies before its end), then N (600)
`GET /api/bot/game/stream/{id}` on it with the BOT's token from 10
addresses while the 10 last plies are played, one a second: the streams
answered and refused, the server's RSS (VmRSS) before and at its peak,
the innocent's figures.

`analysis-queue`: `--analysis-queue 16`; an address asks a 300 ms
analysis 3 times alone (the baseline), then N (20) addresses each keep
the longest analysis going (floods.py `analysis`'s flood) and, after 3 s,
a fresh address asks a 300 ms analysis again and again for 40 s (a `busy`
refusal: again after a second, on a new socket): how many were accepted,
refused `busy`, done, and their time to `done`.

`ai-workers`: `--ai-threads 0` and one `gore worker --threads 1` on the
same SQLite file; an innocent's level-12 game (the AI opens) 3 times
alone: the time to the AI's first action (the baseline); then N (20)
addresses create level-12 AI-first games as fast as they can for 20 s (a
refusal: again after 0.1 s), and the innocent's next game: the time to
its first AI action (none within 40 s: said so).

Python's standard library only (the WebSocket client and the helpers of
floods.py).
"""
import http.client, json, os, re, resource, selectors, socket, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import floods  # noqa: E402
from floods import Ws, pct, rss_mb  # noqa: E402

INNOCENT = "203.0.113.5"
PASSWORD = "an abuse flood passphrase"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def serve_flags(bin_dir):
    """The long flags `gore serve --help` lists."""
    out = subprocess.run([f"{bin_dir}/gore", "serve", "--help"], capture_output=True, text=True)
    return set(re.findall(r"--[a-z][a-z0-9-]*", out.stdout))


def serve(bin_dir, *flags, rate_limit=0):
    """floods.py's `serve` (`--rate-limit 0`; another `rate_limit`: the
    same command with that one), behind the trusted proxy, with the flags
    (each `--flag value`) this build knows."""
    known, kept, i = serve_flags(bin_dir), [], 0
    flags = ["--trust-proxy", "127.0.0.1", "--max-conns-per-ip", "100000", *flags]
    while i < len(flags):
        has_value = i + 1 < len(flags) and not flags[i + 1].startswith("--")
        group = flags[i:i + 2] if has_value else flags[i:i + 1]
        if group[0] in known:
            kept += group
        else:
            log(f"  ({bin_dir}: no {group[0]}, left out)")
        i += len(group)
    db = tempfile.mkdtemp() + "/gore.sqlite3"
    if rate_limit:
        p = subprocess.Popen([f"{bin_dir}/gore", "serve", "--port", "0", "--db", db, "--rate-limit",
                              str(rate_limit), *kept], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        host, port = p.stdout.readline().split("http://")[1].strip().strip("/").rsplit(":", 1)
        port = int(port)
    else:
        p, host, port = floods.serve(bin_dir, db, *kept)
    p.db = db
    return p, host, port


def call(host, port, method, path, body=None, xff=INNOCENT, cookie=None, token=None, headers=None,
         timeout=60):
    """(status, JSON or None, the cookie set or None)."""
    c = http.client.HTTPConnection(host, port, timeout=timeout)
    h = {"X-Forwarded-For": xff, "Content-Type": "application/json"}
    if cookie:
        h["Cookie"] = cookie
    if token:
        h["Authorization"] = f"Bearer {token}"
    h.update(headers or {})
    try:
        c.request(method, path, json.dumps(body) if body is not None else None, h)
        res = c.getresponse()
        data = res.read()
    finally:
        c.close()
    set_cookie = res.getheader("Set-Cookie")
    try:
        value = json.loads(data or b"null")
    except ValueError:
        value = None
    return res.status, value, set_cookie.split(";")[0] if set_cookie else None


def account(host, port, name, xff):
    st, v, cookie = call(host, port, "POST", "/api/account/signup", {"username": name, "password": PASSWORD}, xff)
    assert st == 201 and cookie, (name, st, v)
    return cookie


class Probe:
    """The innocent: `GET /api/me` with his session every 50 ms, each over a
    new connection, in a process of his own (in a thread of this one, he
    waited for the attackers' threads' turn at Python's lock: his figures
    were the script's, not the server's); figures by time window."""

    def __init__(self, host, port, xff=INNOCENT):
        st, _, cookie = call(host, port, "GET", "/api/me", xff=xff)
        assert st == 200, st
        self.out = tempfile.NamedTemporaryFile("r", suffix=".probe")
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--probe", host, str(port), xff,
                                      cookie, self.out.name])

    @staticmethod
    def run(host, port, xff, cookie, path):
        """The probing process: a line per request, `start seconds status`."""
        with open(path, "a", buffering=1) as f:
            while True:
                t0 = time.time()
                try:
                    st, _, _ = call(host, int(port), "GET", "/api/me", xff=xff, cookie=cookie, timeout=30)
                except (OSError, http.client.HTTPException):
                    st = "error"
                f.write(f"{t0} {time.time() - t0} {st}\n")
                time.sleep(0.05)

    def samples(self):
        with open(self.out.name) as f:
            rows = [line.split() for line in f if line.endswith("\n")]
        return [(float(a), float(b), int(c) if c.isdigit() else c) for a, b, c in rows]

    def window(self, t0, t1):
        xs = [s for s in self.samples() if t0 <= s[0] < t1]
        ok = [d for _, d, st in xs if st == 200]
        return {"p50": pct(ok, 0.5), "p99": pct(ok, 0.99), "n": len(ok), "failed": len(xs) - len(ok)}

    def close(self):
        self.proc.terminate()
        self.proc.wait(35)


def fig(w):
    s = f"{w['p50']:.1f} / {w['p99']:.1f} ms"
    return s + (f" ({w['failed']} failed)" if w["failed"] else "")


def count(d, k, lock):
    with lock:
        d[k] = d.get(k, 0) + 1


def fmt_counts(d):
    return ", ".join(f"{k}: {v}" for k, v in sorted(d.items(), key=lambda kv: str(kv[0]))) or "none"


# ---------------------------------------------------------------- streams

class Streams:
    """NDJSON streams opened on raw sockets and read (drained) by one
    thread: the status of each answer, those the server ended."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.sel = selectors.DefaultSelector()
        self.status, self.lock = {}, threading.Lock()
        self.open, self.ended, self.bytes = 0, 0, 0
        self.stop = threading.Event()
        self.reader = threading.Thread(target=self.drain, daemon=True)
        self.reader.start()

    def add(self, path, xff, token):
        try:
            s = socket.create_connection((self.host, self.port), timeout=30)
            s.sendall((f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAuthorization: Bearer {token}\r\n"
                       f"X-Forwarded-For: {xff}\r\nAccept: application/x-ndjson\r\n\r\n").encode())
            head = b""
            while b"\r\n" not in head:
                chunk = s.recv(4096)
                if not chunk:
                    raise OSError("closed")
                head += chunk
            st = int(head.split(b" ", 2)[1])
        except (OSError, ValueError, IndexError):
            count(self.status, "error", self.lock)
            return
        count(self.status, st, self.lock)
        if st != 200:
            s.close()
            return
        s.setblocking(False)
        with self.lock:
            self.open += 1
            self.sel.register(s, selectors.EVENT_READ)

    def drain(self):
        while not self.stop.is_set():
            with self.lock:
                empty = not self.sel.get_map()
            if empty:
                time.sleep(0.05)
                continue
            for key, _ in self.sel.select(0.2):
                try:
                    data = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data:
                    self.bytes += len(data)
                    continue
                with self.lock:
                    self.sel.unregister(key.fileobj)
                    self.open -= 1
                    self.ended += 1
                key.fileobj.close()

    def open_many(self, path, token, n, addresses=10):
        """n streams from `addresses` addresses (a thread each)."""
        def opener(a):
            for _ in range(a, n, addresses):
                self.add(path, f"198.51.100.{1 + a}", token)
        ts = [threading.Thread(target=opener, args=(a,)) for a in range(addresses)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    def close(self):
        self.stop.set()
        self.reader.join(5)
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()


def challenger(host, port, cookie, target, stop, counts, lock, per_second=5):
    """Challenges `target` and cancels it, per_second times a second."""
    pending = None
    while not stop.is_set():
        t0 = time.time()
        try:
            if pending:
                st, _, _ = call(host, port, "POST", f"/api/challenge/{pending}/cancel", xff="192.0.2.77", cookie=cookie)
                count(counts, f"cancel {st}", lock)
            st, v, _ = call(host, port, "POST", f"/api/challenge/{target}", {}, "192.0.2.77", cookie)
            count(counts, f"challenge {st}", lock)
            pending = v["challenge"]["id"] if st == 201 else None
        except (OSError, http.client.HTTPException):
            count(counts, "error", lock)
            pending = None
        stop.wait(max(0.0, 1 / per_second - (time.time() - t0)))


def event_streams(bin_dir, n):
    n = n or 600
    p, host, port = serve(bin_dir)
    try:
        token = make_bot(host, port, "Robo_1", "192.0.2.10")
        chal = account(host, port, "Chal_1", "192.0.2.77")
        probe = Probe(host, port)
        t0 = time.time()
        time.sleep(5)
        t1 = time.time()
        streams = Streams(host, port)
        streams.open_many("/api/stream/event", token, n)
        opened = time.time() - t1
        log(f"  {n} event streams asked in {opened:.1f} s: {fmt_counts(streams.status)}")
        stop, counts, lock = threading.Event(), {}, threading.Lock()
        ch = threading.Thread(target=challenger, args=(host, port, chal, "Robo_1", stop, counts, lock))
        t2 = time.time()
        ch.start()
        time.sleep(20)
        t3 = time.time()
        stop.set()
        ch.join(60)
        probe.close()
        base, during = probe.window(t0, t1), probe.window(t2, t3)
        still = streams.open
        streams.close()
        return {"baseline": base, "during": during,
                "outcome": f"streams answered {fmt_counts(streams.status)}; ended by the server within 20 s: "
                           f"{streams.ended}, still open: {still}; challenger's answers {fmt_counts(counts)}"}
    finally:
        p.kill()
        p.wait()


def make_bot(host, port, name, xff):
    cookie = account(host, port, name, xff)
    st, v, _ = call(host, port, "POST", "/api/account/tokens", {"description": "flood", "scopes": ["bot:play"]},
                    xff, cookie)
    assert st == 201, (st, v)
    token = v["token"]
    st, v, _ = call(host, port, "POST", "/api/bot/account/upgrade", xff=xff, token=token)
    assert st == 200, (st, v)
    return token


# The BOT's actions, tried in this order (the API tells it no `legal`).
BOT_TRIES = [f"{r}{i}" for r in "ba" for i in range(1, 5)] + ["pass", "decline", "accept"]


def game_streams(bin_dir, n, plies=1000, live=10):
    n = n or 600
    p, host, port = serve(bin_dir, "--max-plies", "20000")
    try:
        token = make_bot(host, port, "Robo_1", "192.0.2.10")
        human = account(host, port, "Hum_1", "192.0.2.11")

        def new_game():
            st, v, _ = call(host, port, "POST", "/api/challenge/Robo_1", {"colour": "A", "rules": "seeds=8"}, "192.0.2.11",
                            human)
            assert st == 201, (st, v)
            st, v, _ = call(host, port, "POST", f"/api/challenge/{v['challenge']['id']}/accept", xff="192.0.2.10",
                            token=token)
            assert st == 200, (st, v)
            return v["game"]

        def step(g):
            """Plays the player to move's first legal action (the BOT's: the
            first of a fixed list the server accepts); False once over."""
            st, v, _ = call(host, port, "GET", f"/api/games/{g}", xff="192.0.2.11", cookie=human)
            if v["status"] != "playing":
                return False
            if v["to_move"] == v["you"]:
                st, r, _ = call(host, port, "POST", f"/api/games/{g}/actions",
                                {"action": v["legal"][0], "ply": v["ply"]}, "192.0.2.11", human)
                assert st == 200, (st, r)
                return True
            for a in BOT_TRIES:
                st, r, _ = call(host, port, "POST", f"/api/bot/game/{g}/move/{a}", xff="192.0.2.10", token=token)
                if st == 200:
                    return True
                if st != 422:
                    break
            raise AssertionError(("the BOT found no action", st, r))

        # First legal actions are deterministic: a game that ends at ply k is
        # played again to k - live, then its last plies are played during the flood.
        g, k = new_game(), 0
        while k < plies and step(g):
            k += 1
        if k < plies:
            call(host, port, "POST", f"/api/games/{g}/resign", xff="192.0.2.11", cookie=human)
            g, target = new_game(), max(0, k - live)
            for _ in range(target):
                assert step(g)
            k = target
        log(f"  the game {g} stands at ply {k}")
        probe = Probe(host, port)
        t0 = time.time()
        time.sleep(5)
        rss_before = rss_mb(p.pid)
        t1 = time.time()
        streams = Streams(host, port)
        streams.open_many(f"/api/bot/game/stream/{g}", token, n)
        rss_open = rss_mb(p.pid)
        log(f"  {n} game streams asked in {time.time() - t1:.1f} s: {fmt_counts(streams.status)}")
        t2, peak, played = time.time(), rss_open, 0
        while time.time() < t2 + 15:
            if played < live - 1 and step(g):
                played += 1
            peak = max(peak, rss_mb(p.pid))
            time.sleep(1)
        t3 = time.time()
        probe.close()
        still = streams.open
        streams.close()
        return {"baseline": probe.window(t0, t1), "during": probe.window(t2, t3),
                "outcome": f"{k}-ply game; streams answered {fmt_counts(streams.status)}, {still} open after 15 s "
                           f"({played} plies played meanwhile, {streams.bytes / 1e6:.1f} MB streamed); RSS "
                           f"{rss_before:.0f} MB before, {rss_open:.0f} MB with the streams open, peak {peak:.0f} MB"}
    finally:
        p.kill()
        p.wait()


# ---------------------------------------------------------------- pages

def pages(bin_dir, n, seconds=15.0):
    p, host, port = serve(bin_dir, rate_limit=n or 0)
    try:
        st, g, _ = call(host, port, "POST", "/api/games", {"mode": "local"}, "192.0.2.20")
        assert st == 201, (st, g)
        gid, tok = g["id"], g["token"]
        for k in range(100):
            xff = f"192.0.2.{100 + k}"  # each ply from its own address: within any rate limit
            st, v, _ = call(host, port, "GET", f"/api/games/{gid}", xff=xff, token=tok)
            if v["status"] == "over" or not v["legal"]:
                break
            st, _, _ = call(host, port, "POST", f"/api/games/{gid}/actions", {"action": v["legal"][0], "ply": v["ply"]},
                            xff, token=tok)
            assert st == 200, st
        probe = Probe(host, port)
        t0 = time.time()
        time.sleep(5)
        res = {"baseline": probe.window(t0, time.time())}
        outcome = []
        for addresses in (1, 8):
            stop, lock = threading.Event(), threading.Lock()
            got = {"pages": 0, "inline": 0, "bytes": 0, "status": {}}

            def flood(xff):
                c = http.client.HTTPConnection(host, port, timeout=60)
                while not stop.is_set():
                    try:
                        c.request("GET", f"/g/{gid}", headers={"X-Forwarded-For": xff, "Accept-Encoding": "br, gzip",
                                                               "Accept-Language": "en"})
                        r = c.getresponse()
                        body = r.read()
                        with lock:
                            got["status"][r.status] = got["status"].get(r.status, 0) + 1
                            got["bytes"] += len(body)
                            if r.status == 200:
                                got["pages"] += 1
                                got["inline"] += len(body) > 50_000
                        if (r.getheader("Connection") or "").lower() == "close":
                            c.close()
                            c = http.client.HTTPConnection(host, port, timeout=60)
                    except (OSError, http.client.HTTPException):
                        c.close()
                        with lock:
                            got["status"]["error"] = got["status"].get("error", 0) + 1
                        c = http.client.HTTPConnection(host, port, timeout=60)

            ts = [threading.Thread(target=flood, args=(f"198.51.100.{1 + a}",), daemon=True)
                  for a in range(addresses) for _ in range(4)]
            t1 = time.time()
            for t in ts:
                t.start()
            time.sleep(seconds)
            t2 = time.time()
            stop.set()
            for t in ts:
                t.join(60)
            el = time.time() - t1
            res[f"during {addresses}"] = probe.window(t1, t2)
            outcome.append(f"{addresses} addr × 4 conns: {got['pages'] / el:.1f} pages/s ({got['inline']} inline "
                           f"of {got['pages']}), {got['bytes'] / el / 1e6:.2f} MB/s to the attacker, answers "
                           f"{fmt_counts(got['status'])}")
            time.sleep(3)
        probe.close()
        res["during"] = res["during 8"]
        res["outcome"] = f"--rate-limit {n or 0}: " + "; ".join(outcome)
        return res
    finally:
        p.kill()
        p.wait()


# ---------------------------------------------------------------- tournaments

def tournaments(bin_dir, n, seconds=2.0, rounds=3, wait=20.0):
    n = n or 20
    p, host, port = serve(bin_dir)
    try:
        creator = account(host, port, "Cai_1", "192.0.2.30")
        attacker = account(host, port, "Flood_1", "198.51.100.200")

        def arena(name, xff):
            st, v, _ = call(host, port, "POST", "/api/tournaments",
                            {"name": name, "clock": "3+2", "minutes": 30, "rated": False}, xff, creator)
            assert st == 201, (st, v)
            return v["id"]

        def standings(tid, cookie):
            st, v, _ = call(host, port, "GET", f"/api/tournaments/{tid}", xff="192.0.2.30", cookie=cookie)
            return {s["name"]: s["game"] for s in v["standings"]}

        def paired(tid, names, cookie, previous, until):
            """The game both play, once it is not `previous` (None by `until`)."""
            while time.time() < until:
                s = standings(tid, cookie)
                games = {s.get(x) for x in names}
                if len(games) == 1 and None not in games and previous not in games:
                    return games.pop()
                time.sleep(0.05)
            return None

        def play_out(g, players):
            # Each makes an action, then the first resigns.
            for _ in range(2):
                for cookie, xff in players:
                    st, v, _ = call(host, port, "GET", f"/api/games/{g}", xff=xff, cookie=cookie)
                    if v.get("you") == v.get("to_move") and v.get("legal"):
                        call(host, port, "POST", f"/api/games/{g}/actions", {"action": v["legal"][0], "ply": v["ply"]},
                             xff, cookie)
                        break
            st, v, _ = call(host, port, "POST", f"/api/games/{g}/resign", xff=players[0][1], cookie=players[0][0])
            assert st == 200, (st, v)

        def session(tid, names, net):
            """Two innocents join: their first pairing, then `rounds`
            re-pairings, each timed from the resignation (None: not within `wait`)."""
            players = []
            for k, name in enumerate(names):
                xff = f"192.0.2.{net + k}"
                players.append((account(host, port, name, xff), xff))
            t = time.time()
            for cookie, xff in players:
                st, v, _ = call(host, port, "POST", f"/api/tournaments/{tid}/join", xff=xff, cookie=cookie)
                assert st == 200, (st, v)
            g = paired(tid, names, players[0][0], None, time.time() + wait)
            first = time.time() - t if g else None
            again = []
            while g and len(again) < rounds:
                play_out(g, players)
                t = time.time()
                g = paired(tid, names, players[0][0], g, t + wait)
                again.append(time.time() - t if g else None)
            for cookie, xff in players:
                call(host, port, "POST", f"/api/tournaments/{tid}/withdraw", xff=xff, cookie=cookie)
            if g:
                play_out(g, players)
            return first, again

        def say(first, again):
            f = "never" if first is None else f"{first * 1e3:.0f} ms"
            return f"first pairing {f}, re-paired after " + ", ".join(
                f"never (within {wait:.0f} s)" if x is None else f"{x * 1e3:.0f} ms" for x in again)

        probe = Probe(host, port)
        t0 = time.time()
        before = session(arena("Before the flood", "192.0.2.30"), ["Ana_1", "Bea_1"], 40)
        t1 = time.time()
        log(f"  before: {say(*before)}")
        stop, counts, lock = threading.Event(), {}, threading.Lock()

        def flood(i):
            k = 0
            while not stop.is_set():
                k += 1
                try:
                    st, v, _ = call(host, port, "POST", "/api/tournaments",
                                    {"name": f"Flood {i} {k}", "clock": "3+2", "minutes": 180},
                                    f"198.51.100.{1 + i}", attacker)
                    count(counts, st, lock)
                except (OSError, http.client.HTTPException):
                    count(counts, "error", lock)

        ts = [threading.Thread(target=flood, args=(i,)) for i in range(n)]
        t2 = time.time()
        for t in ts:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in ts:
            t.join(60)
        t3 = time.time()
        log(f"  flood: {fmt_counts(counts)} in {t3 - t2:.1f} s")
        after = session(arena("After the flood", "192.0.2.31"), ["Dan_1", "Eva_1"], 60)
        t4 = time.time()
        log(f"  after: {say(*after)}")
        probe.close()
        return {"baseline": probe.window(t0, t1), "during": probe.window(t2, t3), "after": probe.window(t3, t4),
                "outcome": f"flood from {n} addresses for {seconds:.0f} s: arenas {fmt_counts(counts)}; "
                           f"before: {say(*before)}; after: {say(*after)}"}
    finally:
        p.kill()
        p.wait()


# ---------------------------------------------------------------- analysis

def analyse(host, port, xff, ws, timeout):
    """One 300 ms analysis: ('done', seconds) or ('refused', code) or
    ('timeout', seconds), and the socket to use next (None: open a new one)."""
    t0 = time.time()
    try:
        if ws is None:
            ws = Ws(host, port, "/api/analysis/ws", xff)
        ws.s.settimeout(max(0.1, timeout))
        ws.send({"type": "analyse", "line": "a1", "time_ms": 300})
        while True:
            m = ws.recv()
            if m["type"] == "error":
                ws.s.close()
                return ("refused", m["error"]["code"]), None
            if m["type"] == "done":
                return ("done", time.time() - t0), ws
    except socket.timeout:
        ws.s.close()
        return ("timeout", time.time() - t0), None
    except OSError as e:
        if ws:
            ws.s.close()
        return ("refused", str(e)[:40]), None


def analysis_queue(bin_dir, n, seconds=40.0, warmup=3.0):
    n = n or 20
    p, host, port = serve(bin_dir, "--analysis-queue", "16")
    try:
        probe = Probe(host, port)
        t0 = time.time()
        base, ws = [], None
        for _ in range(3):
            (kind, x), ws = analyse(host, port, "192.0.2.50", ws, 25)
            assert kind == "done", (kind, x)
            base.append(x)
        if ws:
            ws.s.close()
        t1 = time.time()
        stop, done = threading.Event(), {"done": 0, "error": 0}

        def flooder(xff):
            try:
                w = Ws(host, port, "/api/analysis/ws", xff)
                w.send({"type": "analyse"})
                while not stop.is_set():
                    m = w.recv()
                    if m["type"] in ("done", "error"):
                        done[m["type"]] += 1
                        if m["type"] == "error":
                            time.sleep(0.5)
                        w.send({"type": "analyse"})
            except OSError:
                pass

        for i in range(n):
            threading.Thread(target=flooder, args=(f"198.51.{i // 250}.{1 + i % 250}",), daemon=True).start()
        time.sleep(warmup)
        t2 = time.time()
        end = t2 + seconds
        times, refused, pending, ws = [], {}, None, None
        while time.time() < end:
            (kind, x), ws = analyse(host, port, INNOCENT, ws, end - time.time())
            if kind == "done":
                times.append(x)
            elif kind == "refused":
                refused[x] = refused.get(x, 0) + 1
                time.sleep(1)
            else:
                pending = x
        t3 = time.time()
        stop.set()
        probe.close()
        asked = len(times) + sum(refused.values()) + (pending is not None)
        w = {"p50": pct(times, 0.5), "p99": pct(times, 0.99), "n": len(times), "failed": 0}
        return {"baseline": probe.window(t0, t1), "during": probe.window(t2, t3),
                "analysis baseline": {"p50": pct(base, 0.5), "p99": pct(base, 0.99), "n": len(base), "failed": 0},
                "analysis during": w,
                "outcome": f"{n} flooding addresses; the innocent's 300 ms analyses in {seconds:.0f} s: {asked} asked, "
                           f"{len(times)} done (time to done p50 {w['p50']:.0f} ms, max "
                           f"{max(times) * 1e3 if times else float('nan'):.0f} ms), refused {fmt_counts(refused)}"
                           + (f", one not done after {pending:.1f} s" if pending else "")
                           + f"; baseline alone {', '.join(f'{x * 1e3:.0f}' for x in base)} ms;"
                           f" the flood's analyses meanwhile: {done['done']} done, {done['error']} refused"}
    finally:
        p.kill()
        p.wait()


# ---------------------------------------------------------------- AI workers

def ai_reply(host, port, xff, until):
    """A new level-12 game, the AI (A) to open: (status, seconds to its first
    action, None if not by `until`)."""
    t0 = time.time()
    st, g, _ = call(host, port, "POST", "/api/games", {"mode": "ai", "level": floods.TOP_LEVEL, "colour": "B"}, xff)
    if st != 201:
        return st, None
    while time.time() < until:
        st, v, _ = call(host, port, "GET", f"/api/games/{g['id']}", xff=xff, token=g["token"])
        if st == 200 and v["actions"]:
            return 201, time.time() - t0
        time.sleep(0.05)
    return 201, None


def ai_workers(bin_dir, n, seconds=20.0, wait=40.0):
    n = n or 20
    p, host, port = serve(bin_dir, "--ai-threads", "0")
    w = subprocess.Popen([f"{bin_dir}/gore", "worker", "--db", p.db, "--threads", "1"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    try:
        w.stdout.readline()
        probe = Probe(host, port)
        t0 = time.time()
        base = []
        for k in range(3):
            st, x = ai_reply(host, port, f"192.0.2.{70 + k}", time.time() + wait)
            assert st == 201 and x is not None, (st, x)
            base.append(x)
        t1 = time.time()
        stop, counts, lock = threading.Event(), {}, threading.Lock()

        def flood(i):
            while not stop.is_set():
                try:
                    st, _, _ = call(host, port, "POST", "/api/games",
                                    {"mode": "ai", "level": floods.TOP_LEVEL, "colour": "B"}, f"198.51.100.{1 + i}")
                except (OSError, http.client.HTTPException):
                    st = "error"
                count(counts, st, lock)
                if st != 201:
                    time.sleep(0.1)

        ts = [threading.Thread(target=flood, args=(i,)) for i in range(n)]
        for t in ts:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in ts:
            t.join(60)
        t2 = time.time()
        log(f"  flood: {fmt_counts(counts)}")
        st, x = ai_reply(host, port, INNOCENT, time.time() + wait)
        t3 = time.time()
        probe.close()
        got = f"{x * 1e3:.0f} ms" if x is not None else (f"none within {wait:.0f} s" if st == 201 else f"refused {st}")
        return {"baseline": probe.window(t0, t1), "during": probe.window(t1, t3),
                "outcome": f"{n} addresses, level-{floods.TOP_LEVEL} AI-first games for {seconds:.0f} s: "
                           f"{fmt_counts(counts)}; the innocent's next game's first AI action: {got} "
                           f"(alone before: {', '.join(f'{b * 1e3:.0f}' for b in base)} ms)"}
    finally:
        w.kill()
        w.wait()
        p.kill()
        p.wait()


SCENARIOS = {"tournaments": tournaments, "event-streams": event_streams, "pages": pages,
             "game-streams": game_streams, "analysis-queue": analysis_queue,
             "ai-workers": ai_workers}

if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "--probe":
        Probe.run(*sys.argv[2:])
    if len(sys.argv) < 4 or sys.argv[1] not in SCENARIOS:
        sys.exit(__doc__)
    scenario, builds = sys.argv[1], {"old": sys.argv[2], "new": sys.argv[3]}
    n = int(sys.argv[4]) if len(sys.argv) > 4 else None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with open("/proc/loadavg") as f:
        print(f"{scenario}: load average {' '.join(f.read().split()[:3])} before the runs")
    rows = []
    for label, bin_dir in builds.items():
        log(f"{scenario} on {label} ({bin_dir})")
        r = SCENARIOS[scenario](bin_dir, n)
        rows.append((label, bin_dir, r))
        extra = "".join(f", {k} {fig(v)}" for k, v in r.items() if isinstance(v, dict) and k not in ("baseline", "during"))
        print(f"{label}: innocent GET /api/me baseline {fig(r['baseline'])}, during {fig(r['during'])}{extra}; "
              f"{r['outcome']}", flush=True)
    print()
    print("| build | innocent p50 / p99 baseline | during | × p99 | outcome |")
    print("|---|---|---|---|---|")
    for label, bin_dir, r in rows:
        ratio = r["during"]["p99"] / r["baseline"]["p99"] if r["baseline"]["p99"] else float("nan")
        print(f"| {label} (`{bin_dir}`) | {fig(r['baseline'])} | {fig(r['during'])} | {ratio:.1f} | {r['outcome']} |")
