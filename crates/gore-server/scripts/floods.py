"""The floods of issue 8 against a release `gore serve`, with an innocent
game's latency measured by gore-load meanwhile (docs/BENCHMARKS.md).

    python3 crates/gore-server/scripts/floods.py idle   target/release 1100 [many]
    python3 crates/gore-server/scripts/floods.py slow   target/release 500  [many]
    python3 crates/gore-server/scripts/floods.py gets   target/release DB GAME_ID
    python3 crates/gore-server/scripts/floods.py ai     target/release 60
    python3 crates/gore-server/scripts/floods.py signup target/release 40 [taken|fresh]
    python3 crates/gore-server/scripts/floods.py password target/release 8

`idle`: N connections that send nothing; `slow`: N that send a request
head a byte every half second, never finishing. From one address
(127.0.0.2, the server's default caps) or, with `many`, each from its own
(127.0.x.y: the per-address cap does not help; the server runs under
`ulimit -n 1024`, so the descriptor reserve and the timeouts are what
act). The innocent: `gore-load --games 10 --actions 50 --think-ms 50`
from 127.0.0.1. Prints the innocent's figures, how many attacking
connections the server refused or closed, and how long it held the rest.

`gets`: restarts a server on DB (whose GAME_ID is long), sends 16
concurrent `GET /api/games/GAME_ID` and, at the same time, one unrelated
request (`POST /api/games`); prints their times. Five rounds.

`ai`: N top-level (12) AI games created at once, each from its own client
address (`X-Forwarded-For` through `--trust-proxy 127.0.0.1`, so that the
per-client cap does not refuse them all), then one innocent level-1 game:
prints how many were refused `busy` and how long the innocent waited for
the AI's first move. Five rounds.

`signup`: N connections flood `POST /api/account/signup` for 20 s
(through `--trust-proxy 127.0.0.1`, with the rate limit off: the worst
case, as if from many addresses each within its limits). `taken` (the
default): one address, always a taken username (issue 25's flood: each
cost a 19 MiB hash); `fresh`: a new username and a new address each
time, so that every sign-up is a real hash (the workers saturated).
Meanwhile an innocent logs in again and again (each time from another
address, so that no per-address budget is his limit): prints his p50/p99
and refusals before and during the flood, the attackers' answers, and the
server's resident memory (VmRSS from /proc) before, at its peak during,
and 5 s after the flood.

`password`: an account's session (a stolen cookie) sends N connections of
`POST /api/account/password` with wrong `current` passwords for 20 s, from
one address; meanwhile an innocent sends `GET /api/me`: prints his p50/p99
before and during, and the attacker's answers.

`ai-starve`: issue 25's starving scenario. N addresses (`X-Forwarded-For`)
each keep 2 level-11 games going (the AI moves first; each reply is
answered at once with the first legal action) for 25 s; after 3 s, an
innocent address creates level-12 games one after another (the AI to move
first) and waits for each one's first reply. Prints the innocent's replies,
waits (median, max) and refusals, and the flood's replies.

    python3 crates/gore-server/scripts/floods.py ai-starve target/release 40

`analysis`: N addresses each keep one analysis socket asking for the
longest analysis (the server's cap, 10 s) again as soon as one is done;
after 3 s, an innocent address asks for a 300 ms analysis, five times one
after another: prints each one's time from `analyse` to `done` (or that
it was not done within 25 s), and its first `queued` place.

    python3 crates/gore-server/scripts/floods.py analysis target/release 16

Python's standard library only (a minimal WebSocket client below).
"""
import http.client, json, os, resource, socket, subprocess, sys, tempfile, threading, time

# The top level (gore_ai::MAX_LEVEL): the deepest search, the costliest job.
TOP_LEVEL = 12

def serve(bin_dir, db, *flags, nofile=None):
    def limit():
        if nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    p = subprocess.Popen([f"{bin_dir}/gore", "serve", "--port", "0", "--db", db, "--rate-limit", "0",
                          *flags], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         preexec_fn=limit)
    line = p.stdout.readline()
    host, port = line.split("http://")[1].strip().strip("/").rsplit(":", 1)
    return p, host, int(port)

def innocent(bin_dir, port):
    out = subprocess.run([f"{bin_dir}/gore-load", "--url", f"http://127.0.0.1:{port}", "--games", "10",
                          "--actions", "50", "--think-ms", "50"], capture_output=True, text=True)
    lines = [l for l in (out.stdout + out.stderr).splitlines()
             if l.startswith(("games ", "latency ms"))]
    if out.returncode != 0:
        errs = [l for l in out.stderr.splitlines() if l.startswith("game ")]
        lines.append(f"FAILED ({len(errs)} games failed; first: {errs[0] if errs else out.stderr[-200:]})")
    return " | ".join(lines)

def source(i, many):
    if not many:
        return "127.0.0.2"
    return f"127.0.{1 + i // 250}.{1 + i % 250}"

def attack(kind, bin_dir, n, many):
    db = tempfile.mkdtemp() + "/gore.sqlite3"
    p, host, port = serve(bin_dir, db, *(["--max-conns-per-ip", "100000"] if many else []),
                          nofile=1024 if many else None)
    base = innocent(bin_dir, port)
    socks, opened = [], time.time()
    for i in range(n):
        s = socket.socket()
        s.bind((source(i, many), 0))
        s.settimeout(5)
        try:
            s.connect((host, port))
            if kind == "slow":
                s.sendall(f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\n".encode())
            socks.append(s)
        except OSError:
            s.close()
    stop = threading.Event()
    status = {"refused": 0, "closed": 0, "held": 0}
    closed_at = []

    def watch():
        # Trickles the slow heads, and notes when the server closes each.
        alive = list(socks)
        while alive and not stop.is_set():
            for s in list(alive):
                try:
                    s.setblocking(False)
                    try:
                        data = s.recv(4096)
                        if data.startswith(b"HTTP/1.1 503"):
                            status["refused"] += 1
                            alive.remove(s)
                            continue
                        if not data:
                            status["closed"] += 1
                            closed_at.append(time.time() - opened)
                            alive.remove(s)
                            continue
                    except BlockingIOError:
                        pass
                    if kind == "slow":
                        s.send(b"x")
                except OSError:
                    status["closed"] += 1
                    closed_at.append(time.time() - opened)
                    alive.remove(s)
            time.sleep(0.5)
        status["held"] = len(alive)

    w = threading.Thread(target=watch)
    w.start()
    # The innocent's first request that is served, from the flood's start.
    refused_innocent = 0
    while True:
        try:
            c = http.client.HTTPConnection(host, port, timeout=2)
            c.request("GET", "/api/games/none")
            c.getresponse().read()
            break
        except OSError:
            refused_innocent += 1
            time.sleep(0.2)
    served_after = time.time() - opened
    under = innocent(bin_dir, port)
    # Until the server has closed every one it accepted (60 s at most).
    deadline = time.time() + 60
    while w.is_alive() and time.time() < deadline:
        w.join(1)
    stop.set()
    w.join()
    closed_at.sort()
    print(f"{kind}: {n} connections from {'as many addresses' if many else 'one address'}")
    print(f"  innocent alone:  {base}")
    print(f"  the innocent's first request served {served_after:.1f} s after the flood began"
          f" ({refused_innocent} refused before)")
    print(f"  under the flood: {under}")
    print(f"  refused 503 at once: {status['refused']}, closed by the server: {status['closed']}"
          + (f" (median after {closed_at[len(closed_at) // 2]:.1f} s, last after {closed_at[-1]:.1f} s)"
             if closed_at else "")
          + f", still open after 60 s: {status['held']}")
    for s in socks:
        s.close()
    p.kill()

def gets(bin_dir, db, gid):
    rounds = []
    for r in range(5):
        p, host, port = serve(bin_dir, db, "--max-plies", "20000")
        times, lock = {}, threading.Lock()

        def get(i):
            c = http.client.HTTPConnection(host, port, timeout=120)
            t = time.time()
            c.request("GET", f"/api/games/{gid}")
            body = c.getresponse().read()
            with lock:
                times[i] = (time.time() - t, len(body))

        def unrelated():
            c = http.client.HTTPConnection(host, port, timeout=120)
            t = time.time()
            c.request("POST", "/api/games", json.dumps({"mode": "local"}),
                      {"Content-Type": "application/json"})
            c.getresponse().read()
            with lock:
                times["unrelated"] = (time.time() - t, 0)

        ts = [threading.Thread(target=get, args=(i,)) for i in range(16)]
        ts.append(threading.Thread(target=unrelated))
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        slowest = max(v[0] for k, v in times.items() if k != "unrelated")
        rounds.append((times["unrelated"][0], slowest))
        print(f"round {r + 1}: unrelated POST {times['unrelated'][0] * 1e3:.1f} ms; "
              f"16 GETs of {times[0][1]} bytes, the slowest {slowest * 1e3:.0f} ms")
        p.kill()
        p.wait()
    u = sorted(x[0] for x in rounds)[2]
    g = sorted(x[1] for x in rounds)[2]
    print(f"median: unrelated {u * 1e3:.1f} ms, slowest GET {g * 1e3:.0f} ms")

def ai(bin_dir, n):
    waits = []
    for r in range(5):
        db = tempfile.mkdtemp() + "/gore.sqlite3"
        p, host, port = serve(bin_dir, db, "--trust-proxy", "127.0.0.1", "--max-conns-per-ip", "100000")
        codes = {}

        def new(level, xff):
            c = http.client.HTTPConnection(host, port, timeout=120)
            c.request("POST", "/api/games", json.dumps({"mode": "ai", "level": level, "colour": "B"}),
                      {"Content-Type": "application/json", "X-Forwarded-For": xff})
            res = c.getresponse()
            body = json.loads(res.read() or b"null")
            return res.status, body

        def attacker(i):
            st, _ = new(TOP_LEVEL, f"198.51.{i // 250}.{1 + i % 250}")
            codes[st] = codes.get(st, 0) + 1

        ts = [threading.Thread(target=attacker, args=(i,)) for i in range(n)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        t0 = time.time()
        st, g = new(1, "203.0.113.7")
        assert st == 201, (st, g)
        while True:
            c = http.client.HTTPConnection(host, port, timeout=120)
            c.request("GET", f"/api/games/{g['id']}", headers={"X-Forwarded-For": "203.0.113.7"})
            v = json.loads(c.getresponse().read())
            if len(v["actions"]) >= 1:
                break
            time.sleep(0.05)
        waits.append(time.time() - t0)
        print(f"round {r + 1}: {n} level-{TOP_LEVEL} games: {codes}; the innocent level-1 game's first AI move "
              f"after {waits[-1] * 1e3:.0f} ms")
        p.kill()
        p.wait()
    print(f"median wait {sorted(waits)[len(waits) // 2] * 1e3:.0f} ms")

def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0

def post(host, port, path, body, xff, conn=None):
    c = conn or http.client.HTTPConnection(host, port, timeout=120)
    c.request("POST", path, json.dumps(body), {"Content-Type": "application/json", "X-Forwarded-For": xff})
    res = c.getresponse()
    res.read()
    return res.status

def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1e3 if xs else float("nan")

def signup(bin_dir, n, kind):
    db = tempfile.mkdtemp() + "/gore.sqlite3"
    p, host, port = serve(bin_dir, db, "--trust-proxy", "127.0.0.1", "--max-conns-per-ip", "100000")
    me = {"username": "Innocent_1", "password": "an innocent passphrase"}
    assert post(host, port, "/api/account/signup", me, "203.0.113.1") == 201
    seq = [0]

    def login_loop(until):
        times, codes = [], {}
        while time.time() < until:
            seq[0] += 1
            xff = f"203.0.{113 + seq[0] // 250 % 10}.{1 + seq[0] % 250}"
            t = time.time()
            st = post(host, port, "/api/account/login", me, xff)
            codes[st] = codes.get(st, 0) + 1
            if st == 200:
                times.append(time.time() - t)
        return times, codes

    rss = {"before": rss_mb(p.pid)}
    before, bcodes = login_loop(time.time() + 5)
    stop = threading.Event()
    acodes, lock = {}, threading.Lock()

    def attacker(i):
        c = http.client.HTTPConnection(host, port, timeout=120)
        k = 0
        while not stop.is_set():
            k += 1
            if kind == "fresh":
                body = {"username": f"F{i}_{k}", "password": "a flood passphrase"}
                xff = f"10.{i}.{k // 250 % 250}.{1 + k % 250}"
            else:
                body = {"username": "Innocent_1", "password": "a flood passphrase"}
                xff = "198.51.100.9"
            try:
                st = post(host, port, "/api/account/signup", body, xff, c)
            except (OSError, http.client.HTTPException):
                c = http.client.HTTPConnection(host, port, timeout=120)
                st = "error"
            with lock:
                acodes[st] = acodes.get(st, 0) + 1

    peak = [0.0]

    def watch():
        while not stop.is_set():
            peak[0] = max(peak[0], rss_mb(p.pid))
            time.sleep(0.2)

    ts = [threading.Thread(target=attacker, args=(i,)) for i in range(n)] + [threading.Thread(target=watch)]
    for t in ts:
        t.start()
    during, dcodes = login_loop(time.time() + 20)
    stop.set()
    for t in ts:
        t.join()
    rss["peak during"] = peak[0]
    time.sleep(5)
    rss["5 s after"] = rss_mb(p.pid)
    print(f"innocent log-in before: p50 {pct(before, .5):.0f} ms, p99 {pct(before, .99):.0f} ms, answers {bcodes}")
    print(f"innocent log-in during: p50 {pct(during, .5):.0f} ms, p99 {pct(during, .99):.0f} ms, answers {dcodes}")
    print(f"{n} attacking connections ({kind}) for 20 s: answers {acodes}")
    print("server RSS: " + ", ".join(f"{k} {v:.0f} MB" for k, v in rss.items()))
    p.kill()
    p.wait()

def password(bin_dir, n):
    db = tempfile.mkdtemp() + "/gore.sqlite3"
    p, host, port = serve(bin_dir, db, "--trust-proxy", "127.0.0.1", "--max-conns-per-ip", "100000")
    c = http.client.HTTPConnection(host, port, timeout=120)
    c.request("POST", "/api/account/signup", json.dumps({"username": "Owner_1", "password": "the owner's passphrase"}),
              {"Content-Type": "application/json", "X-Forwarded-For": "203.0.113.1"})
    res = c.getresponse()
    res.read()
    assert res.status == 201, res.status
    cookie = res.getheader("Set-Cookie").split(";")[0]

    def gets(until):
        times = []
        c = http.client.HTTPConnection(host, port, timeout=120)
        while time.time() < until:
            t = time.time()
            c.request("GET", "/api/me", headers={"X-Forwarded-For": "192.0.2.50"})
            c.getresponse().read()
            times.append(time.time() - t)
        return times

    before = gets(time.time() + 5)
    stop = threading.Event()
    acodes, lock = {}, threading.Lock()

    def attacker(i):
        c = http.client.HTTPConnection(host, port, timeout=120)
        k = 0
        while not stop.is_set():
            k += 1
            c.request("POST", "/api/account/password",
                      json.dumps({"current": f"guess {i} {k} xx", "new": "a new passphrase"}),
                      {"Content-Type": "application/json", "X-Forwarded-For": "198.51.100.9", "Cookie": cookie})
            res = c.getresponse()
            res.read()
            with lock:
                acodes[res.status] = acodes.get(res.status, 0) + 1

    ts = [threading.Thread(target=attacker, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    during = gets(time.time() + 20)
    stop.set()
    for t in ts:
        t.join()
    print(f"innocent GET /api/me before: p50 {pct(before, .5):.1f} ms, p99 {pct(before, .99):.1f} ms ({len(before)} requests)")
    print(f"innocent GET /api/me during: p50 {pct(during, .5):.1f} ms, p99 {pct(during, .99):.1f} ms ({len(during)} requests)")
    print(f"{n} connections of wrong current passwords for 20 s: answers {acodes}")
# The levels of issue 25's scenario: the flood's (cheaper, searched first
# before the fix) and the innocent's.
FLOOD_LEVEL = 11

def api(host, port, method, path, body=None, xff=None, token=None):
    c = http.client.HTTPConnection(host, port, timeout=120)
    headers = {"Content-Type": "application/json"}
    if xff:
        headers["X-Forwarded-For"] = xff
    if token:
        headers["Authorization"] = f"Bearer {token}"
    c.request(method, path, json.dumps(body) if body is not None else None, headers)
    res = c.getresponse()
    data = res.read()
    c.close()
    try:
        return res.status, json.loads(data or b"null")
    except ValueError:
        return res.status, None

def ai_starve(bin_dir, n, seconds=25.0, warmup=3.0):
    db = tempfile.mkdtemp() + "/gore.sqlite3"
    p, host, port = serve(bin_dir, db, "--trust-proxy", "127.0.0.1", "--max-conns-per-ip", "100000")
    stop = threading.Event()
    flood = {"replies": 0, "refused": 0}
    lock = threading.Lock()

    def keep_playing(xff):
        try:
            play(xff)
        except (OSError, http.client.HTTPException, KeyError, TypeError, IndexError):
            if not stop.is_set():
                raise

    def play(xff):
        # One game: answer every AI reply at once with the first legal action.
        while not stop.is_set():
            st, g = api(host, port, "POST", "/api/games", {"mode": "ai", "level": FLOOD_LEVEL, "colour": "B"}, xff)
            if st != 201:
                with lock:
                    flood["refused"] += 1
                time.sleep(0.2)
                continue
            seen = 0
            while not stop.is_set():
                st, v = api(host, port, "GET", f"/api/games/{g['id']}", xff=xff, token=g["token"])
                if st != 200 or v["status"] == "over":
                    break
                if len(v["actions"]) > seen and v["to_move"] == "B" and not v["thinking"]:
                    with lock:
                        flood["replies"] += 1
                    seen = len(v["actions"]) + 1
                    api(host, port, "POST", f"/api/games/{g['id']}/actions",
                        {"action": v["legal"][0], "ply": len(v["actions"])}, xff, g["token"])
                else:
                    time.sleep(0.05)

    ts = []
    for i in range(n):
        for _ in range(2):
            t = threading.Thread(target=keep_playing, args=(f"198.51.{i // 250}.{1 + i % 250}",), daemon=True)
            t.start()
            ts.append(t)
    time.sleep(warmup)
    waits, refused, pending = [], 0, None
    end = time.time() + seconds - warmup
    k = 0
    while time.time() < end:
        xff = f"203.0.113.{1 + k % 250}"
        k += 1
        t0 = time.time()
        st, g = api(host, port, "POST", "/api/games", {"mode": "ai", "level": TOP_LEVEL, "colour": "B"}, xff)
        if st != 201:
            refused += 1
            time.sleep(0.5)
            continue
        while time.time() < end:
            st, v = api(host, port, "GET", f"/api/games/{g['id']}", xff=xff)
            if st == 200 and len(v["actions"]) >= 1:
                waits.append(time.time() - t0)
                break
            time.sleep(0.05)
        else:
            pending = time.time() - t0
    stop.set()
    p.kill()
    p.wait()
    w = sorted(waits)
    med = f"{w[len(w) // 2] * 1e3:.0f}" if w else "-"
    mx = f"{w[-1] * 1e3:.0f}" if w else "-"
    print(f"{n} addresses x 2 level-{FLOOD_LEVEL} games, {seconds:.0f} s: the flood got {flood['replies']} replies "
          f"({flood['refused']} creations refused); the innocent's level-{TOP_LEVEL} games: {len(waits)} first replies, "
          f"wait median {med} ms, max {mx} ms, {refused} of {k} creations refused"
          + (f", one still waiting after {pending * 1e3:.0f} ms" if pending else ""))

class Ws:
    """A minimal WebSocket client (RFC 6455): text frames, masked."""

    def __init__(self, host, port, path, xff, cookie=None):
        import base64
        self.s = socket.create_connection((host, port), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        extra = f"Cookie: {cookie}\r\n" if cookie else ""
        self.s.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                        f"X-Forwarded-For: {xff}\r\n{extra}\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.s.recv(1)
            if not chunk:
                raise OSError("closed during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise OSError(head.split(b"\r\n")[0].decode())
        self.buf = b""

    def send(self, obj):
        data = json.dumps(obj).encode()
        mask = os.urandom(4)
        n = len(data)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
        self.s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(65536)
            if not chunk:
                raise OSError("closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """The next JSON text message (pings answered, others skipped)."""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = int.from_bytes(self._read(2), "big")
            elif n == 127:
                n = int.from_bytes(self._read(8), "big")
            data = self._read(n)
            op = b0 & 0x0F
            if op == 0x1:
                return json.loads(data)
            if op == 0x9:  # ping: pong with the same payload
                mask = os.urandom(4)
                self.s.sendall(bytes([0x8A, 0x80 | len(data)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
            elif op == 0x8:
                raise OSError("closed by the server")

def analysis(bin_dir, n, seconds=25.0, warmup=3.0):
    db = tempfile.mkdtemp() + "/gore.sqlite3"
    p, host, port = serve(bin_dir, db, "--trust-proxy", "127.0.0.1", "--max-conns-per-ip", "100000")
    stop = threading.Event()
    done = {"n": 0}

    def flooder(xff):
        try:
            ws = Ws(host, port, "/api/analysis/ws", xff)
            ws.send({"type": "analyse"})
            while not stop.is_set():
                m = ws.recv()
                if m["type"] in ("done", "error"):
                    done["n"] += 1
                    if m["type"] == "error":
                        time.sleep(0.5)
                    ws.send({"type": "analyse"})
        except OSError:
            pass

    for i in range(n):
        threading.Thread(target=flooder, args=(f"198.51.{i // 250}.{1 + i % 250}",), daemon=True).start()
    time.sleep(warmup)
    ws = Ws(host, port, "/api/analysis/ws", "203.0.113.7")
    ws.s.settimeout(seconds)
    for r in range(5):
        t0 = time.time()
        ws.send({"type": "analyse", "line": "a1", "time_ms": 300})
        place = None
        try:
            while True:
                m = ws.recv()
                if m["type"] == "queued" and place is None:
                    place = m["place"]
                if m["type"] == "error":
                    print(f"innocent analysis {r + 1}: refused: {m['error']}")
                    break
                if m["type"] == "done":
                    print(f"innocent analysis {r + 1} (300 ms): done after {(time.time() - t0) * 1e3:.0f} ms"
                          f" (first place told: {place})")
                    break
        except (socket.timeout, OSError):
            print(f"innocent analysis {r + 1} (300 ms): not done after {seconds:.0f} s (first place told: {place})")
            break
    stop.set()
    print(f"{n} flooding addresses: {done['n']} of their analyses ended meanwhile")
    p.kill()
    p.wait()

if __name__ == "__main__":
    cmd, bin_dir = sys.argv[1], sys.argv[2]
    if cmd in ("idle", "slow"):
        attack(cmd, bin_dir, int(sys.argv[3]), len(sys.argv) > 4 and sys.argv[4] == "many")
    elif cmd == "ai":
        ai(bin_dir, int(sys.argv[3]))
    elif cmd == "signup":
        signup(bin_dir, int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "taken")
    elif cmd == "password":
        password(bin_dir, int(sys.argv[3]))
    elif cmd == "ai-starve":
        ai_starve(bin_dir, int(sys.argv[3]))
    elif cmd == "analysis":
        analysis(bin_dir, int(sys.argv[3]))
    elif cmd == "gets":
        gets(bin_dir, sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
