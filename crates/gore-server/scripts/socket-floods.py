"""Two socket floods against a `gore serve` (issue 25, points 13 and 14).

    python3 crates/gore-server/scripts/socket-floods.py target/debug/gore descriptors
    python3 crates/gore-server/scripts/socket-floods.py target/debug/gore resync

descriptors: the server runs with `ulimit -n 1024` behind a trusted proxy
(this script, which names 30 addresses in X-Forwarded-For); each address
opens 32 analysis sockets that never send a message; then an innocent
address makes 100 requests, each on a new connection. Prints the sockets
accepted and refused, the server's open descriptors, and the innocent's
answers and p50/p99. (The flood lasts less than the server's 30 s ping
interval: the sockets would answer pings the same way.)

resync: plays a local game (the first legal action each time, up to 1,990
plies) and measures a socket's answers: bytes of the first state, of a
`resync` without a ply and with the client's ply, and what 20 resyncs in a
row return.
"""
import http.client, json, os, resource, socket, struct, subprocess, sys, tempfile, time

gore, what = sys.argv[1], sys.argv[2]
db = tempfile.mkdtemp() + "/gore.sqlite3"


def limit_fds():
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))


args = [gore, "serve", "--port", "0", "--db", db, "--rate-limit", "0", "--trust-proxy", "127.0.0.1"]
p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                     preexec_fn=limit_fds if what == "descriptors" else None)
line = p.stdout.readline()
host, port = line.split("http://")[1].strip().strip("/").rsplit(":", 1)
port = int(port)


def request(method, path, body=None, headers=None):
    c = http.client.HTTPConnection(host, port, timeout=30)
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    c.request(method, path, json.dumps(body) if body is not None else None, h)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


def ws_open(path, xff=None):
    """A socket's connection after its 101, or the refusal's status."""
    s = socket.create_connection((host, port), timeout=30)
    extra = f"X-Forwarded-For: {xff}\r\n" if xff else ""
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
               f"Sec-WebSocket-Version: 13\r\n{extra}\r\n").encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            return None, 0
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    status = int(head.split(b" ")[1])
    if status != 101:
        s.close()
        return None, status
    return (s, rest), 101


def ws_send(s, text):
    data = text.encode()
    mask = os.urandom(4)
    n = len(data)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
    s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))


class Reader:
    def __init__(self, s, rest):
        self.s, self.buf = s, rest

    def need(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(1 << 20)
            if not chunk:
                raise EOFError
            self.buf += chunk

    def frame(self):
        """(opcode, payload, bytes on the wire)."""
        self.need(2)
        op, n = self.buf[0] & 0x0F, self.buf[1] & 0x7F
        at = 2
        if n == 126:
            self.need(4)
            n, at = struct.unpack(">H", self.buf[2:4])[0], 4
        elif n == 127:
            self.need(10)
            n, at = struct.unpack(">Q", self.buf[2:10])[0], 10
        self.need(at + n)
        payload, self.buf = self.buf[at:at + n], self.buf[at + n:]
        return op, payload, at + n

    def text(self):
        while True:
            op, payload, size = self.frame()
            if op == 1:
                return json.loads(payload), size


def descriptors():
    held, refused, failed = [], 0, 0
    for a in range(30):
        for _ in range(32):
            try:
                conn, status = ws_open("/api/analysis/ws", f"10.0.{a}.1")
            except OSError:
                failed += 1
                continue
            if conn:
                held.append(conn)
            elif status:
                refused += 1
            else:
                failed += 1
    fds = len(os.listdir(f"/proc/{p.pid}/fd"))
    print(f"silent analysis sockets: {len(held)} open, {refused} refused 503, {failed} failed; "
          f"server descriptors open: {fds} of 1024")
    ok, times = 0, []
    for _ in range(100):
        t = time.monotonic()
        try:
            status, _ = request("GET", "/api/me", headers={"X-Forwarded-For": "10.1.0.1"})
            ok += status == 200
        except OSError:
            pass
        times.append((time.monotonic() - t) * 1000)
    times.sort()
    print(f"innocent: {ok}/100 answered 200; p50 {times[49]:.1f} ms, p99 {times[98]:.1f} ms")


def resync():
    status, data = request("POST", "/api/games", {"mode": "local"})
    g = json.loads(data)
    gid, token = g["id"], g["token"]
    auth = {"Authorization": f"Bearer {token}"}
    ply = 0
    while ply < 1990:
        status, data = request("GET", f"/api/games/{gid}", headers=auth)
        v = json.loads(data)
        if v["status"] != "playing" or not v["legal"]:
            break
        status, _ = request("POST", f"/api/games/{gid}/actions", {"action": v["legal"][0], "ply": ply}, auth)
        if status != 200:
            break
        ply += 1
    (s, rest), _ = ws_open(f"/api/games/{gid}/ws?token={token}")
    r = Reader(s, rest)
    first, size = r.text()
    print(f"game of {ply} plies: first state {size} bytes")
    for label, msg in [("resync", {"type": "resync"}), (f"resync with ply {ply}", {"type": "resync", "ply": ply}),
                       (f"resync with ply {max(ply - 1, 0)}", {"type": "resync", "ply": max(ply - 1, 0)})]:
        m = json.dumps(msg)
        ws_send(s, m)
        answer, size = r.text()
        print(f"{label} ({len(m)} bytes): a {answer['type']} of {size} bytes")
    # A fresh socket, 20 whole-state resyncs in a row (4 would close an
    # abuser's socket after the limit: count until closed or answered).
    (s, rest), _ = ws_open(f"/api/games/{gid}/ws?token={token}")
    r = Reader(s, rest)
    r.text()
    for _ in range(20):
        ws_send(s, '{"type":"resync"}')
    kinds, total = {}, 0
    s.settimeout(5)
    try:
        while sum(kinds.values()) < 20:
            op, payload, size = r.frame()
            if op == 8:
                kinds["closed"] = kinds.get("closed", 0) + 1
                break
            if op == 1:
                k = json.loads(payload)["type"]
                kinds[k] = kinds.get(k, 0) + 1
                total += size
    except (EOFError, OSError):
        pass
    print(f"20 resyncs without a ply on one socket: {kinds}, {total} bytes sent back")


try:
    {"descriptors": descriptors, "resync": resync}[what]()
finally:
    p.kill()
