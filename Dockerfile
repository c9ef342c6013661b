# syntax=docker/dockerfile:1
# Referee: a stateless gRPC rules referee. Build: docker build -t referee .
# Run: docker run -p 50051:50051 referee

FROM python:3.11.11-slim-bookworm AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY referee ./referee
COPY container/build-wheels.sh /usr/local/bin/build-wheels.sh
RUN build-wheels.sh /wheels /src

FROM python:3.11.11-slim-bookworm AS runtime
LABEL org.opencontainers.image.title="referee" \
      org.opencontainers.image.description="A stateless gRPC rules referee for card games (Écarté, Earl of Coventry)" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://example.invalid/referee"
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    REFEREE_PORT=50051 \
    REFEREE_LOG_FORMAT=json
COPY container/install.sh /usr/local/bin/install-referee.sh
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    install-referee.sh /wheels \
 && rm /usr/local/bin/install-referee.sh \
 && useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin referee
USER 10001:10001
EXPOSE 50051
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["referee", "health"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["referee"]
CMD ["serve"]
