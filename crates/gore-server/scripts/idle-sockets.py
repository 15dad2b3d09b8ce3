"""Resident memory of a `gore serve` per idle WebSocket.

    python3 crates/gore-server/scripts/idle-sockets.py target/debug/gore 1000

Starts the server on a fresh database, opens N sockets on one game by hand
(each reads its first state), and prints the growth of VmRSS per socket.
Needs `ulimit -n` above N.
"""
import http.client, json, os, socket, subprocess, sys, tempfile, time

gore, n = sys.argv[1], int(sys.argv[2])
db = tempfile.mkdtemp() + "/gore.sqlite3"
p = subprocess.Popen([gore, "serve", "--port", "0", "--db", db, "--rate-limit", "0",
                      "--max-conns-per-ip", "100000"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
line = p.stdout.readline()
host, port = line.split("http://")[1].strip().strip("/").rsplit(":", 1)
port = int(port)

def rss_kib():
    for l in open(f"/proc/{p.pid}/status"):
        if l.startswith("VmRSS:"):
            return int(l.split()[1])

c = http.client.HTTPConnection(host, port)
c.request("POST", "/api/games", json.dumps({"mode": "local"}), {"Content-Type": "application/json"})
gid = json.loads(c.getresponse().read())["id"]
c.close()

def socket_open():
    s = socket.create_connection((host, port))
    s.sendall((f"GET /api/games/{gid}/ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    buf = b""
    while b"\r\n\r\n" not in buf or len(buf.split(b"\r\n\r\n", 1)[1]) < 2:
        chunk = s.recv(65536)
        assert chunk, "closed"
        buf += chunk
    assert buf.startswith(b"HTTP/1.1 101"), buf[:80]
    return s

# Warm up (the allocator's arenas, the runtime), then measure.
warm = [socket_open() for _ in range(50)]
for s in warm: s.close()
time.sleep(1)
before = rss_kib()
socks = [socket_open() for _ in range(n)]
time.sleep(1)
after = rss_kib()
print(f"{os.path.basename(gore)}: RSS {before} KiB -> {after} KiB with {n} idle sockets: "
      f"{(after - before) / n:.1f} KiB per socket")
for s in socks: s.close()
p.terminate(); p.wait()
