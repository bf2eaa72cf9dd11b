# pbem in a container: `pbem run` with its database and configuration on the volume /data.
#
#   docker build -t pbem .
#   docker volume create pbem-data
#   docker run --rm -v pbem-data:/data -v "$PWD/pbem.toml:/data/pbem.toml:ro" pbem check
#   docker run -d --name pbem --restart unless-stopped -v pbem-data:/data \
#       -v "$PWD/pbem.toml:/data/pbem.toml:ro" --env-file pbem.env pbem
#
# The configuration is read from /data/pbem.toml (PBEM_CONFIG); passwords come from the environment
# (password_env in the file, values in an --env-file). The database is SQLite at /data/pbem.db: the
# environment variable PBEM_DATABASE_URL below takes precedence over [database] url in the file, so for
# PostgreSQL give -e PBEM_DATABASE_URL=postgresql+psycopg://... . More in docs/running.md.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# A font with Cyrillic and Polish letters, for board pictures in Russian and Polish (pbem.render.measure).
# hadolint ignore=DL3008
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core && rm -rf /var/lib/apt/lists/*

# An unprivileged user owns the data; nothing runs as root once the image is built.
RUN groupadd --system --gid 10001 pbem \
    && useradd --system --uid 10001 --gid pbem --home-dir /data --no-create-home --shell /usr/sbin/nologin pbem

COPY pyproject.toml README.md /src/
COPY engine /src/engine
COPY maps /src/maps
COPY pbem /src/pbem
COPY templates /src/templates
# The project itself, with the PostgreSQL driver; its dependencies are pinned by nothing but pyproject.toml.
# hadolint ignore=DL3013
RUN pip install '/src[postgres]' && rm -rf /src

# Owner-only: the database and the Maildirs hold every seat's reply token.
RUN mkdir -p /data && chown pbem:pbem /data && chmod 700 /data
VOLUME /data
WORKDIR /data

ENV PBEM_CONFIG=/data/pbem.toml \
    PBEM_DATABASE_URL=sqlite:////data/pbem.db

USER 10001:10001

# Healthy while a moderator process of this database reads the inbox (pbem status exits 1 when none does).
HEALTHCHECK --interval=60s --timeout=30s --start-period=120s --retries=3 CMD ["pbem", "status", "--no-games"]

# `pbem run` stops cleanly on SIGTERM (docker stop), finishing the mail at hand.
STOPSIGNAL SIGTERM
ENTRYPOINT ["pbem"]
CMD ["run"]
