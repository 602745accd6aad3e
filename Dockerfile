# acwc-bot service image. Configure with a mounted /app/config.toml and the environment
# (ACWC_LICHESS_TOKEN, ACWC_SESSION_SECRET, ACWC_DATABASE_URL for the migration at start).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# The locked versions first (requirements.lock: every package pinned with its hashes), in a layer
# of their own that a change to the code does not rebuild; then the project without resolving.
COPY requirements.lock ./
RUN pip install --require-hashes -r requirements.lock
COPY pyproject.toml README.md alembic.ini config.example.toml ./
COPY bot ./bot
COPY rules ./rules
COPY storage ./storage
COPY migrations ./migrations
RUN pip install --no-deps . \
    && useradd --create-home --uid 10001 acwc \
    && mkdir -p /app/data \
    && chown acwc:acwc /app/data

USER acwc
EXPOSE 8080
# Apply migrations, then run the service. The URL comes from ACWC_DATABASE_URL
# (e.g. postgresql+asyncpg://acwc@db:5432/acwc), matching service.database_url in config.toml.
CMD ["sh", "-c", "alembic upgrade head && exec acwc run --config /app/config.toml"]
