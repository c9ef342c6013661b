# syntax=docker/dockerfile:1
# Referee: a stateless gRPC rules referee. Build: docker build -t referee .
# Run: docker run --read-only --tmpfs /tmp -p 50051:50051 -p 9090:9090 referee
# docs/operations.md lists the settings (REFEREE_* variables), docs/deploy.md Kubernetes.

FROM python:3.11.11-slim-bookworm AS build
# A C compiler for the compiled build (mypyc); this stage is thrown away.
# libc6-dev follows Debian's security updates, so it is not pinned.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc=4:12.2.0-3 libc6-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY buildsys ./buildsys
# Every Python package of both stages at the exact version and hash these locks pin
# (scripts/lock.sh makes them; docs/operations.md#locked-dependencies).
COPY container/requirements.lock container/build-requirements.lock ./container/
COPY referee ./referee
COPY container/build-wheels.sh /usr/local/bin/build-wheels.sh
RUN build-wheels.sh /wheels /src

FROM python:3.11.11-slim-bookworm AS runtime
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="referee" \
      org.opencontainers.image.description="A stateless gRPC rules referee for card games (Écarté, Earl of Coventry)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://example.invalid/referee"
# Worker processes default to the CPUs the container may use (cgroup quota);
# health (plaintext, for probes) on 8081, Prometheus metrics on 9090.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    REFEREE_PORT=50051 \
    REFEREE_HEALTH_PORT=8081 \
    REFEREE_METRICS_PORT=9090 \
    REFEREE_LOG_FORMAT=json
# From the build stage's wheels only: the dependencies as requirements.lock pins them
# (hash-checked), then Referee's wheel, then pip check.
COPY container/install.sh /usr/local/bin/install-referee.sh
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    install-referee.sh /wheels \
 && rm /usr/local/bin/install-referee.sh \
 && useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin referee
USER 10001:10001
EXPOSE 50051 8081 9090
# `referee health` checks REFEREE_HEALTH_PORT (else REFEREE_PORT) on localhost; with
# --container, a container running `grpc-web` is checked at its gateway's /healthz.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["referee", "health", "--container"]
# The supervisor is PID 1: on SIGTERM it drains the workers, reaps them and exits 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["referee"]
CMD ["serve"]
