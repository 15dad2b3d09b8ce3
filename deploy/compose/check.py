#!/usr/bin/env python3
"""Static checks of the Dockerfile and compose.yaml that hadolint and the
Compose schema do not make (.ci/run runs all of them; Docker cannot run on
the test machines, so nothing here builds or starts a container):

- the Dockerfile: several stages, no `latest` or untagged image, a non-root
  numeric USER before the ENTRYPOINT, a HEALTHCHECK, and a CMD whose
  arguments `gore` accepts;
- compose.yaml: every service has a health check, every image a tag other
  than `latest`, every `depends_on` waits for a healthy service, the gore
  services' commands are accepted by this build's `gore` (each is run with
  `--help` last: clap parses and checks every argument before it), the
  servers run no AI of their own and believe only nginx's address, and the
  files nginx mounts exist.

Usage: python3 deploy/compose/check.py PATH/TO/gore
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
errors = []


def fail(msg):
    errors.append(msg)


def gore_accepts(gore, args, what):
    """Whether `gore ARGS --help` exits 0: every argument parsed and valid."""
    run = subprocess.run(
        [gore, *args, "--help"], capture_output=True, text=True, timeout=60
    )
    if run.returncode != 0:
        fail(f"{what}: gore refuses {' '.join(args)}: {run.stderr.strip()}")


def with_defaults(value):
    """`${VAR:-default}` as Compose reads it with VAR unset."""
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", str(value))


def image_pinned(image, what):
    name, _, tag = image.rpartition(":") if ":" in image else (image, "", "")
    if not tag or "/" in tag or tag == "latest":
        fail(f"{what}: image {image!r} has no tag, or `latest`")


def check_dockerfile(gore):
    lines = []
    # Continuation lines joined, comments dropped.
    buf = ""
    for raw in (ROOT / "Dockerfile").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        lines.append(buf + line)
        buf = ""
    instr = [(l.split(None, 1)[0].upper(), l.split(None, 1)[1] if " " in l else "") for l in lines]
    args = {k: v.split("=", 1)[1] for i, v in instr if i == "ARG" and "=" in v for k in [v.split("=", 1)[0]]}
    froms = [v for i, v in instr if i == "FROM"]
    if len(froms) < 2:
        fail("Dockerfile: not multi-stage (one FROM)")
    for f in froms:
        image = f.split()[0]
        image = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), m.group(0)), image)
        image_pinned(image, "Dockerfile FROM")
    last_stage = max(n for n, (i, _) in enumerate(instr) if i == "FROM")
    final = instr[last_stage:]
    users = [v for i, v in final if i == "USER"]
    if not users:
        fail("Dockerfile: the final stage has no USER (it would run as root)")
    else:
        uid = users[-1].split(":")[0]
        if not uid.isdigit() or uid == "0":
            fail(f"Dockerfile: USER {users[-1]} is not a numeric non-root uid")
    order = [i for i, _ in final]
    if "ENTRYPOINT" not in order or "USER" not in order or order.index("USER") > order.index("ENTRYPOINT"):
        fail("Dockerfile: USER must come before ENTRYPOINT")
    if "HEALTHCHECK" not in order:
        fail("Dockerfile: no HEALTHCHECK")
    entry = [v for i, v in final if i == "ENTRYPOINT"]
    if entry and json.loads(entry[-1]) != ["gore"]:
        fail(f"Dockerfile: ENTRYPOINT {entry[-1]} is not [\"gore\"]")
    cmd = [v for i, v in final if i == "CMD"]
    if not cmd:
        fail("Dockerfile: no CMD")
    else:
        gore_accepts(gore, json.loads(cmd[-1]), "Dockerfile CMD")
    # Every file copied from the build context (all but the destination,
    # flags aside) is in the checkout.
    for i, v in instr:
        if i != "COPY" or "--from" in v:
            continue
        for src in [w for w in v.split() if not w.startswith("--")][:-1]:
            if not (ROOT / src).exists():
                fail(f"Dockerfile: COPY {src}: no such file")


def check_compose(gore):
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose.get("services", {})
    for name in ["postgres", "server", "worker", "nginx"]:
        if name not in services:
            fail(f"compose.yaml: no service {name}")
    for name, svc in services.items():
        test = (svc.get("healthcheck") or {}).get("test")
        if not test or (svc.get("healthcheck") or {}).get("disable"):
            fail(f"compose.yaml: service {name} has no health check")
        if "image" in svc and "build" not in svc:
            image_pinned(svc["image"], f"compose.yaml: service {name}")
        for dep, cond in (svc.get("depends_on") or {}).items():
            if (cond or {}).get("condition") != "service_healthy":
                fail(f"compose.yaml: {name} does not wait for {dep} to be healthy")
            if "healthcheck" not in services.get(dep, {}):
                fail(f"compose.yaml: {name} waits for {dep}, which has no health check")
        for volume in svc.get("volumes") or []:
            src = volume.split(":")[0]
            if src.startswith("./") and not (ROOT / src).exists():
                fail(f"compose.yaml: {name} mounts {src}: no such file")
    for name in ["server", "worker"]:
        cmd = [with_defaults(a) for a in services.get(name, {}).get("command") or []]
        if not cmd or cmd[0] != ("serve" if name == "server" else "worker"):
            fail(f"compose.yaml: {name}'s command is not `gore {name}`: {cmd}")
            continue
        gore_accepts(gore, cmd, f"compose.yaml: {name}")
        if "GORE_DB" not in (services[name].get("environment") or {}):
            fail(f"compose.yaml: {name} has no GORE_DB")
    server = [with_defaults(a) for a in services.get("server", {}).get("command") or []]
    if "--ai-threads=0" not in server:
        fail("compose.yaml: the servers must run with --ai-threads=0 (the worker plays)")
    if "--analysis-threads=0" not in server:
        fail("compose.yaml: the servers must run with --analysis-threads=0 (the worker analyses)")
    nginx_ip = (
        services.get("nginx", {}).get("networks", {}).get("backend", {}).get("ipv4_address")
    )
    if f"--trust-proxy={nginx_ip}" not in server:
        fail(f"compose.yaml: the servers must believe nginx's address only ({nginx_ip})")
    conf = (ROOT / "deploy/compose/nginx.conf").read_text()
    if "server server:8080 " not in conf:
        fail("deploy/compose/nginx.conf: the upstream does not name the `server` service")
    if len(re.findall(r"# local-stack: ", conf)) != 3:
        fail("deploy/compose/nginx.conf: deploy/local-stack.sh needs its three local-stack: lines")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    gore = sys.argv[1]
    check_dockerfile(gore)
    check_compose(gore)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        sys.exit(1)
    print("Dockerfile and compose.yaml: ok")


if __name__ == "__main__":
    main()
