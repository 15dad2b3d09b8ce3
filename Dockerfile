# syntax=docker/dockerfile:1
# Goré's `gore` binary on a slim Debian, run as a user of its own.
#
#   docker build -t gore .
#   docker run --rm -p 8080:8080 -v gore-data:/data gore    # http://localhost:8080/
#
# One server on SQLite in the volume /data by default; compose.yaml runs the
# whole stack (PostgreSQL, two servers, an AI worker, nginx) from this image.
# docs/DEPLOY.md, "The whole stack in one command".

# The workspace's minimum Rust (`rust-version` in Cargo.toml), on the same
# Debian as the runtime stage so that the binary finds the glibc it was
# linked against.
ARG RUST_VERSION=1.88

FROM rust:${RUST_VERSION}-slim-bookworm AS build
WORKDIR /src
# The crates and their manifests only: docs, deploy files and tests' data
# outside crates/ do not invalidate the build (.dockerignore drops target/).
COPY Cargo.toml Cargo.lock ./
COPY crates ./crates
# The registry and the target directory are cache mounts, kept between
# builds: a rebuild after a change compiles what changed, not every
# dependency again. The binary is copied out of the mount, which does not
# reach the image. SQLite is compiled in (rusqlite's `bundled`) and the
# assets are embedded in release builds: the binary is all the server needs.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p gore-cli \
    && cp target/release/gore /usr/local/bin/gore

FROM debian:bookworm-slim
# A fixed uid and gid, so that a volume's files keep their owner from one
# image to the next (and an orchestrator's runAsNonRoot can check it).
# No packages: the server makes no TLS connection (PostgreSQL is reached
# without TLS, on a private network), so it needs no ca-certificates, and
# the health check below needs no curl.
RUN groupadd --system --gid 10001 gore \
    && useradd --system --uid 10001 --gid gore --home-dir /data \
       --no-create-home --shell /usr/sbin/nologin gore \
    && mkdir /data \
    && chown gore:gore /data
COPY --from=build /usr/local/bin/gore /usr/local/bin/gore
COPY --chmod=755 deploy/compose/healthcheck.sh /usr/local/bin/gore-healthcheck
USER 10001:10001
WORKDIR /data
# SQLite by default, in the volume; compose.yaml sets a postgres:// URL.
ENV GORE_DB=/data/gore.sqlite3
VOLUME ["/data"]
# The site, and the metrics (never publish those to the Internet).
EXPOSE 8080 9184
# /healthz: the process serves (compose.yaml asks the servers' /readyz).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["gore-healthcheck", "/healthz", "8080"]
# SIGTERM (docker stop) drains within --drain-seconds: 8 here, under
# `docker stop`'s 10 s before it kills (compose.yaml gives 30 s for 10).
STOPSIGNAL SIGTERM
ENTRYPOINT ["gore"]
CMD ["serve", "--addr", "0.0.0.0", "--port", "8080", "--metrics-addr", "0.0.0.0:9184", "--drain-seconds", "8"]
